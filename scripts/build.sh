#!/usr/bin/env bash
# Configures (once) and builds one build directory. Usage: build.sh DIR [meson options...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}; shift || true
if [[ ! -f "$dir/build.ninja" ]]; then
  meson setup "$dir" "$@"
fi
# Two cores, and Spirit X3 translation units need about 1.5 GiB each.
meson compile -C "$dir"
