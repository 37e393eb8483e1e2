#!/usr/bin/env bash
# gavel eval --partial: the residual queries and support modules, as JSON, as
# pretty tables and as Rego source, exactly as OPA 1.7.1's `opa eval --partial`
# printed them for the cases in fixtures/partial/cases.txt (expected/NAME.FORMAT,
# recorded with `partial_cli.sh --record /path/to/opa`).
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/partial
record=""
if [[ ${1:-} == --record ]]; then record=1; shift; fi
bin=$1
out=$(mktemp)
at_exit 'rm -f "$out" "$out.diff"'

while IFS='|' read -r name flags query; do
    name=$(echo "$name" | xargs)
    [[ -z $name || $name == \#* ]] && continue
    query=$(echo "$query" | sed 's/^ *//; s/ *$//')
    args=()
    for f in $flags; do
        if [[ $f == @* ]]; then args+=("$fx/inputs/${f#@}.json"); else args+=("$f"); fi
    done
    for format in json pretty source; do
        expected="$fx/expected/$name.$format"
        "$bin" eval --partial -d "$fx/policies" "${args[@]}" -f "$format" "$query" > "$out" 2>&1
        if [[ -n $record ]]; then
            cp "$out" "$expected"
            continue
        fi
        if diff -u "$expected" "$out" > "$out.diff"; then
            echo "ok   $name ($format)"
        else
            echo "FAIL $name ($format)"
            cat "$out.diff"
            failures=$((failures + 1))
        fi
    done
done < "$fx/cases.txt"
[[ -n $record ]] && { echo "recorded $(ls "$fx/expected" | wc -l) outputs"; exit 0; }
((failures == 0)) || { echo "$failures failure(s)"; exit 1; }
