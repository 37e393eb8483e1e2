#!/usr/bin/env bash
# The compiler through the command line (issue 15's reproductions): what OPA
# rejects is an error with file:line:col in check, eval, test and the REPL;
# inputs built to exhaust the stack are refused with the limit they passed;
# rewrites OPA makes give OPA's answers.
source "$(dirname "$0")/lib.sh"
out=$work/out
err=$work/err


# run STATUS CMD...: runs CMD (stdout to $out, stderr to $err); fails unless it exits with STATUS.
# A crash (139, 134) is never the wanted status.
run() {
    local want=$1; shift
    "$@" > "$out" 2> "$err"
    local got=$?
    if [[ $got -ne $want ]]; then
        fail "$name: exit $got, want $want"; head -c 2000 "$out" "$err"; echo; return 1
    fi
}

# has NAME FILE TEXT: FILE contains TEXT.
has() {
    if grep -qF -- "$3" "$2"; then echo "ok   $1"; else fail "$1: no [$3] in"; head -c 2000 "$2"; echo; fi
}

# is NAME FILE TEXT: FILE is exactly TEXT (and a newline).
is() {
    if diff -u <(printf '%s\n' "$3") "$2" > "$work/diff"; then echo "ok   $1"; else fail "$1"; head -c 2000 "$work/diff"; fi
}

write() { printf '%b' "$2" > "$work/$1"; }

# ---- a comprehension before an unsafe variable crashed every entry point --------------------
write crash.rego 'package a\n\nn if { d := [1 | true]; m > 1 }\n'
unsafe="crash.rego:3:25: rego_unsafe_var_error: var m is unsafe"
name=check; run 1 "$gavel" check "$work/crash.rego" && has "check: unsafe var after a comprehension" "$err" "$unsafe"
name=eval; run 2 "$gavel" eval -d "$work/crash.rego" data && has "eval: unsafe var after a comprehension" "$out" '"message": "var m is unsafe"'
name=test; run 1 "$gavel" test "$work/crash.rego" && has "test: unsafe var after a comprehension" "$err" "$unsafe"
name=repl; printf 'n if { d := [1 | true]; m > 1 }\n' | "$gavel" repl > "$out" 2>&1
is "repl: unsafe var after a comprehension" "$out" "1 error occurred: 1:25: rego_unsafe_var_error: var m is unsafe"

# ---- inputs deep enough to exhaust a stack: refused with the limit, never a crash -------------
python3 - "$work" <<'EOF'
import sys
w = sys.argv[1]
def write(name, text):
    open(f"{w}/{name}", "w").write(text)
write("plus.rego", "package p\n\nx := " + "+".join(["1"] * 3000) + "\n")
write("union.rego", "package p\n\nx := " + "|".join(["{1}"] * 3000) + "\n")
write("nots.rego", "package p\n\nx if { " + "not " * 10000 + "false }\n")
write("else5000.rego", "package p\n\nx := 0 if { false }\n" + "".join(f"else := {i} if {{ false }}\n" for i in range(1, 5000)) + "else := 5000\n")
write("else12000.rego", "package p\n\nx := 0 if { false }\n" + "".join(f"else := {i} if {{ false }}\n" for i in range(1, 12000)) + "else := 12000\n")
write("head.rego", "package p\n\na" + "".join(f".b{i}" for i in range(20000)) + " := 1\n")
write("plus.txt", "+".join(["1"] * 3000))
write("longline.rego", "package p\n\nx := " + "1 + " * 3000 + "}\n")
EOF
# 3,000-term chains are within OPA's limits (100,000 recursive parser calls): they compile and evaluate.
for f in plus union; do
    name="check $f"; run 0 "$gavel" check "$work/$f.rego"
    name="test $f"; run 0 "$gavel" test "$work/$f.rego"
done
name="eval plus"; run 0 "$gavel" eval -f raw -d "$work/plus.rego" data.p.x && is "eval: a 3,000-term chain evaluates" "$out" "3000"
name="eval union"; run 0 "$gavel" eval -f raw -d "$work/union.rego" data.p.x && is "eval: a 3,000-set union evaluates" "$out" "[1]"
name="eval query"; run 0 "$gavel" eval -f raw "$(cat "$work/plus.txt")" && is "eval: a 3,000-term query evaluates" "$out" "3000"
name="check nots"; run 1 "$gavel" check "$work/nots.rego" && has "check: 10,000 not is an error" "$err" "nots.rego:3:12: rego_parse_error: unexpected not keyword"
name="eval else5000"; run 0 "$gavel" eval -f raw -d "$work/else5000.rego" data.p.x && is "eval: 5,000 else branches evaluate" "$out" "5000"
name="check else12000"; run 1 "$gavel" check "$work/else12000.rego" && has "check: 12,000 else branches name the limit" "$err" "rego_parse_error: else chain exceeds the limit of 10000 branches"
name="check head"; run 0 "$gavel" check "$work/head.rego"  # OPA accepts a 20,000-part rule path too
# The error shows the part of a long line around the column, not the whole line.
name="check longline"; run 1 "$gavel" check "$work/longline.rego"
if (( $(wc -c < "$work/err") < 1000 )); then echo "ok   check: long source lines are cut in errors"; else fail "check: long line printed whole"; fi
printf '%s\n' "$(cat "$work/plus.txt")" | "$gavel" repl > "$out" 2>&1
has "repl: a 3,000-term query evaluates" "$out" "3000"

# ---- behaviours that must match OPA ---------------------------------------------------------
write imports.rego 'package p\n\nx := 1\n\nimport data.q.y\n\nz := y + x\n'
write q.json '{"q": {"y": 41}}'
name="imports"; run 0 "$gavel" eval -f raw -d "$work/imports.rego" -d "$work/q.json" data.p.z && is "imports may follow rules (v1)" "$out" "42"
name="imports v0"; run 0 "$gavel" eval --v0-compatible -f raw -d "$work/imports.rego" -d "$work/q.json" data.p.z && is "imports may follow rules (v0)" "$out" "42"

write allow.rego 'package q\n\ndefault allow := false\n'
for format in raw pretty; do
    name="false $format"; run 0 "$gavel" eval -f "$format" -d "$work/allow.rego" data.q.allow && is "eval -f $format: a false rule prints false" "$out" "false"
done
name="false json"; run 0 "$gavel" eval -d "$work/allow.rego" data.q.allow && has "eval -f json: a false rule has value false" "$out" '"value": false'
name="false values"; run 0 "$gavel" eval -f values -d "$work/allow.rego" data.q.allow && is "eval -f values: [false]" "$out" $'[\n  false\n]'
name="1 == 2"; run 0 "$gavel" eval -f raw '1 == 2' && is "eval: 1 == 2 is false" "$out" "false"
name="false"; run 0 "$gavel" eval -f raw 'false' && is "eval: false is false" "$out" "false"
write x.json '{"x": false}'
name="input.x"; run 0 "$gavel" eval -f raw -i "$work/x.json" 'input.x' && is "eval: input.x false is false" "$out" "false"
name="--fail"; run 0 "$gavel" eval --fail -f raw -d "$work/allow.rego" data.q.allow && is "eval --fail: false is defined, exit 0" "$out" "false"
name="--fail-defined"; run 1 "$gavel" eval --fail-defined -f raw -d "$work/allow.rego" data.q.allow && echo "ok   eval --fail-defined: false is defined, exit 1"
name="--fail undefined"; run 1 "$gavel" eval --fail -f raw 'input.nope' && echo "ok   eval --fail: undefined exits 1"
printf 'data.q.allow\n1 == 2\n' | "$gavel" repl -d "$work/allow.rego" > "$out" 2>&1
is "repl: a false rule and 1 == 2 print false" "$out" $'false\nfalse'

write conflict.json '{"q": {"allow": true}}'
name="data conflict"; run 2 "$gavel" eval -f pretty -d "$work/allow.rego" -d "$work/conflict.json" data.q.allow && has "eval: data at a rule's path is a compile error" "$err" "allow.rego:3: rego_compile_error: conflicting rule for data path q/allow found"

write redeclared.rego 'package p\n\np if {\n\tx := 1\n\tx := 2\n}\n'
name="redeclared"; run 1 "$gavel" check "$work/redeclared.rego" && has "check: var x assigned above" "$err" "redeclared.rego:5:2: rego_compile_error: var x assigned above"
write default_ref.rego 'package p\n\ndefault a := {"k": 1}.k\n'
name="default ref"; run 1 "$gavel" check "$work/default_ref.rego" && has "check: a default value with a ref" "$err" "default_ref.rego:3:1: rego_parse_error: illegal default rule (value cannot contain ref)"
write default_call.rego 'package p\n\ndefault a := (3 > 4)\n'
name="default call"; run 1 "$gavel" check "$work/default_call.rego" && has "check: a default value with a call" "$err" "default_call.rego:3:1: rego_parse_error: illegal default rule (value cannot contain call)"
write match.rego 'package p\n\np if "a" = 1\n'
name="match"; run 1 "$gavel" check "$work/match.rego" && has "check: \"a\" = 1 is a match error" "$err" "match.rego:3:6: rego_type_error: match error"
write arrays.rego 'package p\n\np if [x, y] = [1, 2, 3]\n'
name="arrays"; run 1 "$gavel" check "$work/arrays.rego" && has "check: [x, y] = [1, 2, 3] is unsafe" "$err" "arrays.rego:3:6: rego_unsafe_var_error: var x is unsafe"

write rewrites.rego 'package p\n\nwanted := ["a", "b"]\n\nheads := [wanted[i] | true]\n\nwiths := [v | v := input.x with input.x as wanted[_]]\n\nelse_value := data.nope if { true } else := 2\n'
name="rewrites"; run 0 "$gavel" eval -f raw -d "$work/rewrites.rego" '[data.p.heads, data.p.withs, data.p.else_value]' &&
    is "comprehension heads and with values iterate; else after an undefined value" "$out" '[["a","b"],["a","b"],2]'

write early.rego 'package p\n\nc := 1 if {\n\tsome x in [1, 2, 3]\n\tprint(x)\n}\n'
name="early exit"; run 0 "$gavel" eval -f raw -d "$work/early.rego" data.p.c && is "a constant-value rule stops after its first success" "$err" "1"

name="json.patch"; run 0 "$gavel" eval -f raw 'json.patch({"a": 1}, [{"op": "move", "from": "", "path": ""}])' && is "json.patch: move to the same location" "$out" '{"a":1}'

write sets_test.rego 'package sets_test\n\ntest_set contains 1 if { true }\n\ntest_ok if { true }\n'
name="test contains"; run 2 "$gavel" test "$work/sets_test.rego" && has "test: a test_ rule in contains form fails" "$out" "data.sets_test.test_set: FAIL"

# ---- strict mode (-S/--strict) in check, eval and test -----------------------------------------
write strict.rego 'package strict\n\np if {\n\tx := 1\n\ttrue\n}\n'
name="strict check"; run 0 "$gavel" check "$work/strict.rego" && echo "ok   check: an unused assignment is fine without -S"
name="strict check -S"; run 1 "$gavel" check -S "$work/strict.rego" && has "check -S: assigned var x unused" "$err" "strict.rego:4:2: rego_compile_error: assigned var x unused"
name="strict eval"; run 2 "$gavel" eval --strict -f pretty -d "$work/strict.rego" data && has "eval --strict: assigned var x unused" "$err" "rego_compile_error: assigned var x unused"
name="strict test"; run 1 "$gavel" test --strict "$work/strict.rego" && has "test --strict: assigned var x unused" "$err" "rego_compile_error: assigned var x unused"

finish
