#!/usr/bin/env bash
# Programs as deep as OPA 1.7.1 accepts: thousands of chained operands and
# thousands of nested parentheses, arrays, objects and sets, in rules and in
# queries. eval, fmt, parse (AST JSON) and check walk them without a crash and
# answer as OPA does (the values below are OPA's); past gavel's limits a clean
# parse error, never a crash. (fmt's own output is OPA's: chains get
# parentheses, `(1 + 1) + 1`, and formatting it again changes nothing, but for
# OPA's own extra pair around a call's argument chain: `count(({1} | {1}) | {1})`.)
set -uo pipefail
gavel=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

check() {  # name, condition result (0 = ok)
    if [[ $2 -eq 0 ]]; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}

# rep TEXT N: TEXT N times.
rep() { local out; printf -v out '%*s' "$2" ''; printf '%s' "${out// /$1}"; }

# chain OPERAND OP N: `OPERAND OP OPERAND ...` with N operands.
chain() { printf '%s' "$1"; rep " $2 $1" $(($3 - 1)); }

deep_cases() {  # name, expression, expected raw value (tab-separated)
    printf '%b\n' "add3000	$(chain 1 + 3000)\t3000"
    printf '%b\n' "eq3000\t[$(chain 1 == 3000)]\t[false]"
    printf '%b\n' "union3000\tcount($(chain '{1}' '|' 3000))\t1"
    printf '%b\n' "paren2000\t$(rep '(' 2000)1$(rep ')' 2000)\t1"
    printf '%b\n' "paren12000\t$(rep '(' 12000)7$(rep ')' 12000)\t7"
    printf '%b\n' "array2000\t$(rep '[' 2000)1$(rep ']' 2000)\t$(rep '[' 2000)1$(rep ']' 2000)"
    printf '%b\n' "object2000\t$(rep '{"a": ' 2000)1$(rep '}' 2000)\t$(rep '{"a":' 2000)1$(rep '}' 2000)"
    printf '%b\n' "set2000\t$(rep '{' 2000)1$(rep '}' 2000)\t$(rep '[' 2000)1$(rep ']' 2000)"
}

while IFS=$'\t' read -r name expr expected; do
    printf 'package p\n\nx := %s\n' "$expr" > "$work/$name.rego"
    out=$("$gavel" eval -f raw -d "$work/$name.rego" data.p.x 2>&1); st=$?
    check "$name: rule evaluates as OPA's" $([[ $st -eq 0 && "$out" == "$expected" ]]; echo $?)
    out=$("$gavel" eval -f raw "x := $expr; y := x" 2>&1 | head -c 100000); st=$?
    check "$name: query evaluates" $([[ $st -eq 0 && -n "$out" ]]; echo $?)
    "$gavel" fmt "$work/$name.rego" > "$work/$name.fmt.rego" 2>&1; st=$?
    again=$("$gavel" fmt "$work/$name.fmt.rego" 2>&1)
    check "$name: fmt prints text that formats to itself" $([[ $st -eq 0 && ( "$again" == "$(cat "$work/$name.fmt.rego")" || $name == union3000 ) ]]; echo $?)
    "$gavel" parse -f json "$work/$name.rego" > "$work/$name.json" 2>&1; st=$?
    check "$name: parse prints the AST as JSON" $([[ $st -eq 0 ]] && python3 -c 'import json,sys; sys.setrecursionlimit(100000); json.load(open(sys.argv[1]))' "$work/$name.json"; echo $?)
    "$gavel" check "$work/$name.rego" > /dev/null 2>&1; st=$?
    check "$name: check compiles it" $st
done < <(deep_cases)

# 1,000 nested comprehensions, each assigning the next (`[v0 | v0 := [v1 | v1 := ...]]`): the
# local-variable rewrite once copied every level below at each level (771 MB peak here; OPA
# 1.7.1 takes minutes over it). Peak RSS of the whole run, children included, read by Python.
nested=1
for ((i = 0; i < 1000; i++)); do nested="[v$i | v$i := $nested]"; done
printf 'package p\n\nx := %s\n' "$nested" > "$work/nested_comprehensions.rego"
read -r st out peak < <(python3 - "$gavel" "$work/nested_comprehensions.rego" <<'PY'
import resource, subprocess, sys
r = subprocess.run([sys.argv[1], "eval", "-f", "raw", "-d", sys.argv[2], "count(data.p.x)"], capture_output=True, text=True)
print(r.returncode, r.stdout.strip() or "-", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
PY
)
check "1,000 nested comprehensions: evaluated ($out, status $st)" $([[ $st -eq 0 && $out == 1 ]]; echo $?)
check "1,000 nested comprehensions: peak RSS ${peak} MB, under 300 MB" $([[ ${peak:-999999} -lt 300 ]]; echo $?)

# Past the limits: OPA's message as a parse error, status 1, no crash.
printf 'package p\n\nx := %s1%s\n' "$(rep '[' 50001)" "$(rep ']' 50001)" > "$work/too_deep.rego"
out=$("$gavel" eval -d "$work/too_deep.rego" data.p.x 2>&1); st=$?
check "50,001 nested arrays: a parse error" $([[ $st -ne 0 && $st -lt 128 && "$out" == *"max parsing recursion depth exceeded"* && "$out" == *rego_parse_error* ]]; echo $?)
printf 'package p\n\nx := %s\n' "$(chain 1 + 100002)" > "$work/too_long.rego"
out=$("$gavel" eval -d "$work/too_long.rego" data.p.x 2>&1); st=$?
check "100,002 chained operands: a parse error" $([[ $st -ne 0 && $st -lt 128 && "$out" == *"max parsing recursion depth exceeded"* && "$out" == *rego_parse_error* ]]; echo $?)

[[ $failures -eq 0 ]] && echo "all passed" || echo "$failures failed"
exit $((failures > 0))
