#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite: unit, e2e
# and conformance tests and the committed fuzz corpus in a release build, then
# the unit tests, the conformance suite and the fuzz corpus again under
# AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

# In CI (CI=true) a compiler warning fails both builds: the tree compiles without one
# with Debian's GCC 12. Local runs keep warnings as warnings (another compiler may have
# new ones, and -Werror is part of every ccache key).
werror=()
if [[ ${CI:-} == true ]]; then
  werror=(-Dwerror=true)
  for dir in build build-asan; do  # kept from an earlier run
    if [[ -f $dir/build.ninja ]]; then meson configure "$dir" -Dwerror=true; fi
  done
fi
scripts/build.sh build ${werror[@]+"${werror[@]}"}
meson test -C build --print-errorlogs --num-processes 2

# The sanitizer build compiles only what its tests need, at -O1 with line
# tables (-g1): half the compile time of -O2 -g, and ASan's reports keep
# their file:line stacks.
if [[ ! -f build-asan/build.ninja ]]; then
  meson setup build-asan -Dsanitizers=true -Doptimization=1 -Ddebug=false -Db_ndebug=false \
    -Dbenchmarks=false -Dcpp_args=-g1 ${werror[@]+"${werror[@]}"}
fi
meson compile -C build-asan test/unit/unit_tests test/conformance/conformance_runner test/fuzz_compile_replay \
  test/manifests/check_manifests
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  meson test -C build-asan --no-rebuild --print-errorlogs --num-processes 2 --suite unit --suite conformance --suite fuzz-corpus
scripts/summarize-tests.py build/meson-logs/testlog.json build-asan/meson-logs/testlog.json
