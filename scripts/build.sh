#!/usr/bin/env bash
# Configures (once) and builds one build directory.
# Usage: build.sh DIR [meson options...] [-- TARGET...]
# Without targets everything is built (tests and benchmarks included); with them, only
# those (scripts/run-examples.sh builds cli/gavel alone).
# A release build (no -Dbuildtype, -Dsanitizers or -Dfuzzing given) links gavel
# statically (-Dstatic=true) unless the options say -Dstatic=false.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}; shift || true
opts=()
targets=()
while (($#)); do
  if [[ $1 == -- ]]; then shift; targets=("$@"); break; fi
  opts+=("$1"); shift
done
if [[ ! -f "$dir/build.ninja" ]]; then
  if [[ " ${opts[*]-} " != *" -Dstatic="* && " ${opts[*]-} " != *"-Dsanitizers=true"* &&
        " ${opts[*]-} " != *"-Dfuzzing=true"* && " ${opts[*]-} " != *"-Dbuildtype="* ]]; then
    opts+=(-Dstatic=true)
  fi
  meson setup "$dir" ${opts[@]+"${opts[@]}"}
fi
# Two cores, and Spirit X3 translation units need about 1.5 GiB each.
meson compile -C "$dir" ${targets[@]+"${targets[@]}"}
