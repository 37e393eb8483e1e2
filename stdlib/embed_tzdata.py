#!/usr/bin/env python3
"""Writes a C++ source holding the IANA time zones (TZif files of Debian's
tzdata package) for stdlib/zoneinfo_embedded.hpp, so that gavel answers the
same on every host and in an empty container.

Compact: files that are links (same bytes) are stored once, and each file's
version-1 block (32-bit times, which readers of TZif v2+ skip) is dropped, its
header kept with zero counts. posix/ and right/ (leap-second) copies are left
out, as Go's zoneinfo.zip does.

Usage: embed_tzdata.py ZONEINFO_DIR OUTPUT.cpp
"""
import os
import struct
import sys


def strip_v1(data: bytes) -> bytes:
    if len(data) < 44 or data[:4] != b"TZif" or data[4:5] < b"2":
        return data
    isut, isstd, leap, timecnt, typecnt, charcnt = struct.unpack(">6l", data[20:44])
    v1_end = 44 + timecnt * 5 + typecnt * 6 + charcnt + leap * 8 + isstd + isut
    return data[:20] + struct.pack(">6l", 0, 0, 0, 0, 0, 0) + data[v1_end:]


def literal(data: bytes) -> str:
    lines, line = [], []
    width = 0
    for b in data:
        c = chr(b)
        if c == "\\" or c == '"':
            piece = "\\" + c
        elif 32 <= b < 127 and c != "?":
            piece = c
        else:
            piece = "\\%03o" % b
        line.append(piece)
        width += len(piece)
        if width >= 100:
            lines.append('"' + "".join(line) + '"')
            line, width = [], 0
    if line:
        lines.append('"' + "".join(line) + '"')
    return "\n".join(lines) if lines else '""'


def main() -> None:
    root, output = sys.argv[1], sys.argv[2]
    names = {}
    for directory, subdirs, files in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        if rel_dir.split(os.sep)[0] in ("posix", "right"):
            subdirs[:] = []
            continue
        for f in files:
            path = os.path.join(directory, f)
            with open(path, "rb") as fh:
                data = fh.read()
            if data[:4] != b"TZif":
                continue  # zone.tab, tzdata.zi, leapseconds ...
            name = os.path.normpath(os.path.join(rel_dir, f)).replace(os.sep, "/")
            names[name] = strip_v1(data)
    if "UTC" not in names or "Europe/Berlin" not in names:
        sys.exit(f"embed_tzdata.py: {root} does not look like a zoneinfo directory (install tzdata)")
    version = "unknown"
    try:
        with open(os.path.join(root, "tzdata.zi"), encoding="ascii") as fh:
            first = fh.readline().split()
            if len(first) == 3 and first[1] == "version":
                version = first[2]
    except OSError:
        pass
    blob, offsets, entries = bytearray(), {}, []
    for name in sorted(names):
        data = names[name]
        if data not in offsets:
            offsets[data] = len(blob)
            blob += data
        entries.append((name, offsets[data], len(data)))
    out = []
    out.append(f"// Generated at build time by stdlib/embed_tzdata.py from {root} (tzdata {version}): do not edit.\n")
    out.append('#include "stdlib/zoneinfo_embedded.hpp"\n\n#include <algorithm>\n#include <cstdint>\n\n')
    out.append("namespace gavel::stdlib::zoneinfo {\n\nnamespace {\n\n")
    out.append(f"constexpr char kTzif[] =\n{literal(bytes(blob))};\n\n")
    out.append("struct Entry {\n    std::string_view name;\n    std::uint32_t offset, size;\n};\n\n")
    out.append("// Sorted by name (binary search).\nconstexpr Entry kEntries[] = {\n")
    for name, offset, size in entries:
        out.append(f'    {{"{name}", {offset}, {size}}},\n')
    out.append("};\n\n}  // namespace\n\n")
    out.append(
        "std::string_view embedded_tzif(std::string_view name) {\n"
        "    auto it = std::lower_bound(std::begin(kEntries), std::end(kEntries), name,\n"
        "                               [](const Entry& e, std::string_view n) { return e.name < n; });\n"
        "    if (it == std::end(kEntries) || it->name != name) return {};\n"
        "    return std::string_view(kTzif + it->offset, it->size);\n"
        "}\n\n"
    )
    out.append(f'std::string_view embedded_tzdata_version() {{ return "{version}"; }}\n\n')
    out.append(f"std::size_t embedded_zone_count() {{ return {len(entries)}; }}\n\n")
    out.append("}  // namespace gavel::stdlib::zoneinfo\n")
    with open(output, "w", encoding="ascii") as fh:
        fh.write("".join(out))


if __name__ == "__main__":
    main()
