#!/usr/bin/env bash
# OPA's command-line conventions: usage errors exit 1 naming what was wrong,
# --version, help CMD, version with the build commit and --format json.
source "$(dirname "$0")/lib.sh"
out=$(mktemp)
err=$(mktemp)
at_exit 'rm -f "$out" "$err"'

# run NAME STATUS TEXT-ON-STDOUT-OR-STDERR ARGS...
run() {
    local name=$1 want=$2 text=$3; shift 3
    "$gavel" "$@" > "$out" 2> "$err"
    local got=$?
    if [[ $got -ne $want ]]; then fail "$name: exit $got, want $want"; cat "$out" "$err"; return; fi
    if ! grep -qF -- "$text" "$out" "$err"; then fail "$name: no [$text]"; cat "$out" "$err"; return; fi
    echo "ok   $name"
}

version=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" "$(dirname "$0")/../../meson.build" | head -1)
[[ -n $version ]] || { echo "FAIL cannot read the project version from meson.build"; exit 1; }
run "--version" 0 "gavel $version" --version
run "version names the build commit" 0 "Build Commit: " version
run "version --format json" 0 "\"version\": \"$version\"" version --format json
run "an unknown flag exits 1 and names it" 1 "--bogus" eval --bogus 'x'
run "no command exits 1" 1 "A subcommand is required"
run "help CMD" 0 "Evaluate a Rego query" help eval
run "help of an unknown command exits 1" 1 'unknown command "nope"' help nope
run "help alone lists the commands" 0 "check" help
run "an unknown command exits 1 and names it, as OPA (cobra)" 1 'Error: unknown command "frob" for "gavel"' frob x

finish
