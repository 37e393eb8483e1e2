#!/usr/bin/env bash
# Checks that every C++ file in the repository follows .clang-format (the `format` test).
# `scripts/check-format.sh --fix` rewrites the files instead.
# Exits 77 (meson's "skipped") when clang-format is not installed: scripts/install-deps.sh
# installs Debian's, so CI always checks.
set -euo pipefail
cd "$(dirname "$0")/.."
formatter=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z $formatter ]]; then
  echo "clang-format is not installed: format not checked" >&2
  exit 77
fi
if [[ ! -d .git ]] && ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "not a git checkout: format not checked" >&2
  exit 77
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc')
if [[ ${1:-} == --fix ]]; then
  "$formatter" -i --style=file "${files[@]}"
  exit 0
fi
"$formatter" --dry-run --Werror --style=file "${files[@]}"
echo "${#files[@]} files follow .clang-format"
