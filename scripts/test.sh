#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite:
# unit tests and conformance in a release build, then the unit tests again
# under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

scripts/build.sh build
meson test -C build --print-errorlogs --num-processes 2

scripts/build.sh build-asan -Dsanitizers=true -Dbuildtype=debugoptimized -Db_ndebug=false -Dbenchmarks=false
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs --num-processes 2 --suite unit
scripts/summarize-tests.py build/meson-logs/testlog.json build-asan/meson-logs/testlog.json
