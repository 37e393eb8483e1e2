#!/usr/bin/env python3
"""Fails (exit 1) when a file includes a header of a layer above its own.

The layers, bottom up: support -> lang -> compiler -> runtime -> stdlib -> engine ->
webhook -> cli. A folder may include its own headers and those of the folders below it
(cli reaches the server assembly in webhook/; webhook never reaches cli/). meson runs this
as part of every build (the `layers` target), so an upward include fails to build. (Each layer
is also a static library linking only the ones below it, and the layer_check_* executables link
each one whole: a call into a layer above fails to link. Includes need this script: every layer
sees the whole source tree's include path.)
Usage: check-layers.py SOURCE_ROOT [STAMP]
"""
import pathlib
import re
import sys

ORDER = ["support", "lang", "compiler", "runtime", "stdlib", "engine", "webhook", "cli"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    problems = []
    for rank, layer in enumerate(ORDER):
        allowed = set(ORDER[: rank + 1])
        for path in sorted((root / layer).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".in"):
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if m and m.group(1) in ORDER and m.group(1) not in allowed:
                    problems.append(f"{path.relative_to(root)}:{number}: {layer}/ includes {m.group(1)}/, a layer above it")
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-layers: {len(problems)} upward include(s); layers bottom up: {' -> '.join(ORDER)}", file=sys.stderr)
        return 1
    if len(sys.argv) > 2:
        pathlib.Path(sys.argv[2]).write_text("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
