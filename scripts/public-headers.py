#!/usr/bin/env python3
"""Prints the project headers the embedding API reaches: the given headers and every header
of this tree they include, transitively. meson installs exactly these (`meson install`), so
an embedding program builds against the installed copy with `pkg-config gavel`.
Usage: public-headers.py SOURCE_ROOT HEADER...
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    seen, todo = set(), list(sys.argv[2:])
    while todo:
        header = todo.pop()
        if header in seen:
            continue
        seen.add(header)
        for line in (root / header).read_text().splitlines():
            m = INCLUDE.match(line)
            if m and (root / m.group(1)).is_file():
                todo.append(m.group(1))
    print("\n".join(sorted(seen)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
