#!/usr/bin/env bash
# gavel eval / bench: exact output and exit status, as `opa eval` prints them.
source "$(dirname "$0")/lib.sh"
out=/tmp/gavel_e2e_eval_out.$$
err=/tmp/gavel_e2e_eval_err.$$
fx=test/e2e/fixtures/eval


# The expected stdout: the text and a newline, or nothing at all for ''.
expected() { if [[ -n $1 ]]; then printf '%s\n' "$1"; fi; }

# check NAME STATUS EXPECTED-STDOUT CMD...: exit status and stdout exactly.
check() {
    local name=$1 want_status=$2 want_out=$3; shift 3
    "$@" > "$out" 2> "$err"
    local got=$?
    if [[ $got -ne $want_status ]]; then
        fail "$name: exit $got, want $want_status"; cat "$err"; return
    fi
    if ! diff -u <(expected "$want_out") "$out" > "$out.diff"; then
        fail "$name: output differs"; cat "$out.diff"; return
    fi
    echo "ok   $name"
}

# check_stdin NAME STATUS EXPECTED STDIN-TEXT CMD...
check_stdin() {
    local name=$1 want_status=$2 want_out=$3 stdin=$4; shift 4
    printf '%s' "$stdin" | "$@" > "$out" 2> "$err"
    local got=$?
    if [[ $got -ne $want_status ]]; then fail "$name: exit $got, want $want_status"; cat "$err"; return; fi
    if ! diff -u <(expected "$want_out") "$out" > "$out.diff"; then fail "$name: output differs"; cat "$out.diff"; return; fi
    echo "ok   $name"
}

deny_json='{
  "result": [
    {
      "expressions": [
        {
          "value": [
            "image '"'"'mysql'"'"' comes from untrusted registry",
            "image '"'"'nginx'"'"' comes from untrusted registry"
          ],
          "text": "data.kubernetes.admission.deny",
          "location": {
            "row": 1,
            "col": 1
          }
        }
      ]
    }
  ]
}'

check "classic v0 example" 0 "$deny_json" \
    "$gavel" eval --v0-compatible -d examples/admission -i examples/admission/pod.json 'data.kubernetes.admission.deny'
check "v1 example" 0 "$deny_json" \
    "$gavel" eval -d examples/admission-v1 -i examples/admission-v1/pod.json 'data.kubernetes.admission.deny'
check "v1 example, --data and --input long forms" 0 "$deny_json" \
    "$gavel" eval --data examples/admission-v1 --input examples/admission-v1/pod.json 'data.kubernetes.admission.deny'
check_stdin "input from stdin (-I)" 0 "$deny_json" "$(cat examples/admission-v1/pod.json)" \
    "$gavel" eval -d examples/admission-v1 -I 'data.kubernetes.admission.deny'
check_stdin "query from stdin (--stdin)" 0 "$deny_json" \
    "data.kubernetes.admission.deny" \
    "$gavel" eval -d examples/admission-v1 -i examples/admission-v1/pod.json --stdin

# As OPA's rego package: a single expression's value is captured, so a false
# comparison (or rule) is a result with the value false, not undefined.
check "a false comparison has the value false" 0 '{
  "result": [
    {
      "expressions": [
        {
          "value": false,
          "text": "1 == 2",
          "location": {
            "row": 1,
            "col": 1
          }
        }
      ]
    }
  ]
}' "$gavel" eval '1 == 2'
check "undefined prints {}" 0 '{}' "$gavel" eval 'input.x'
check "no input: undefined" 0 '{}' "$gavel" eval -d examples/admission-v1 'data.kubernetes.admission.deny[_]'
check "--fail on undefined exits 1" 1 '{}' "$gavel" eval --fail 'input.x'
check "--fail on false exits 0 (it is a result)" 0 '{
  "result": [
    {
      "expressions": [
        {
          "value": false,
          "text": "1 == 2",
          "location": {
            "row": 1,
            "col": 1
          }
        }
      ]
    }
  ]
}' "$gavel" eval --fail '1 == 2'
check "--fail on defined exits 0" 0 '{
  "result": [
    {
      "expressions": [
        {
          "value": true,
          "text": "1 == 1",
          "location": {
            "row": 1,
            "col": 1
          }
        }
      ]
    }
  ]
}' "$gavel" eval --fail '1 == 1'
check "--fail-defined on defined exits 1" 1 "$deny_json" \
    "$gavel" eval --fail-defined -d examples/admission-v1 -i examples/admission-v1/pod.json 'data.kubernetes.admission.deny'
check "--fail-defined on undefined exits 0" 0 '{}' "$gavel" eval --fail-defined 'input.x'
check "--fail-defined on false exits 1" 1 '{
  "result": [
    {
      "expressions": [
        {
          "value": false,
          "text": "1 == 2",
          "location": {
            "row": 1,
            "col": 1
          }
        }
      ]
    }
  ]
}' "$gavel" eval --fail-defined '1 == 2'

check "bindings in json output" 0 '{
  "result": [
    {
      "expressions": [
        {
          "value": true,
          "text": "x := 1",
          "location": {
            "row": 1,
            "col": 1
          }
        }
      ],
      "bindings": {
        "x": 1
      }
    }
  ]
}' "$gavel" eval 'x := 1'

check "--format values" 0 '[
  [
    "image '"'"'mysql'"'"' comes from untrusted registry",
    "image '"'"'nginx'"'"' comes from untrusted registry"
  ]
]' "$gavel" eval -f values -d examples/admission-v1 -i examples/admission-v1/pod.json 'data.kubernetes.admission.deny'
check "--format raw, a string" 0 '705ab4f5-6393-11e8-b7cc-42010a800002' \
    "$gavel" eval --format raw -i examples/admission-v1/pod.json 'input.request.uid'
check "--format raw, compound values are compact JSON" 0 '["nginx","mysql-backend"] 2' \
    "$gavel" eval --format raw -i examples/admission-v1/pod.json \
    '[c.name | some c in input.request.object.spec.containers]; count(input.request.object.spec.containers)'
check "--format bindings, one object per result" 0 '{
  "name": "nginx"
}
{
  "name": "mysql-backend"
}' "$gavel" eval -f bindings -i examples/admission-v1/pod.json 'name := input.request.object.spec.containers[_].name'
check "a query in brackets stays one query" 0 '[1,2,3]' "$gavel" eval -f raw '[x | some x in [1, 2, 3]]'
check "--format bindings without variables" 0 '{}' "$gavel" eval -f bindings 'true'
check "--format pretty, one value" 0 '[
  "image '"'"'mysql'"'"' comes from untrusted registry",
  "image '"'"'nginx'"'"' comes from untrusted registry"
]' "$gavel" eval -f pretty -d examples/admission-v1 -i examples/admission-v1/pod.json 'data.kubernetes.admission.deny'
check "--format pretty, undefined" 0 'undefined' "$gavel" eval -f pretty 'input.x'
check "--format pretty, false" 0 'false' "$gavel" eval -f pretty '1 == 2'
check "HTML characters are escaped like Go's encoder" 0 '[
  "a\u003cb\u003e\u0026"
]' "$gavel" eval -f values '"a<b>&"'

# Data directories: files land at their directory's path; other extensions are ignored.
check "data directory placement" 0 '[
  {
    "lead": "alice",
    "names": [
      "alice",
      "bob"
    ]
  }
]
[
  1
]' bash -c "'$gavel' eval -f values -d $fx/datadir data.teams && '$gavel' eval -f values -d $fx/datadir data.top"
check "a policy next to data" 0 'alice' "$gavel" eval -f raw -d $fx/datadir data.lookup.first
check "a data file named directly lands at the root" 0 '[
  [
    "alice",
    "bob"
  ]
]' "$gavel" eval -f values -d $fx/datadir/teams/data.json data.names

# Errors: {"errors": [...]} and exit status 2, as opa eval.
check "strict builtin error shape" 2 '{
  "errors": [
    {
      "message": "div: divide by zero",
      "code": "eval_builtin_error",
      "location": {
        "file": "test/e2e/fixtures/eval/div/div.rego",
        "row": 4,
        "col": 2
      }
    }
  ]
}' "$gavel" eval --strict-builtin-errors -d $fx/div -i $fx/div-input.json data.div.p
check "builtin error without strict mode: undefined" 0 '{}' "$gavel" eval -d $fx/div -i $fx/div-input.json data.div.p
check "strict builtin error, text formats print to stderr" 2 '' \
    "$gavel" eval -f raw --strict-builtin-errors -d $fx/div -i $fx/div-input.json data.div.p
if grep -qx '1 error occurred: test/e2e/fixtures/eval/div/div.rego:4: eval_builtin_error: div: divide by zero' "$err"; then
    echo "ok   text error on stderr"; else fail "text error on stderr"; cat "$err"; fi
check "data conflict names both files" 2 '{
  "errors": [
    {
      "message": "test/e2e/fixtures/eval/conflict/b.json: merge error: data.x is also defined by test/e2e/fixtures/eval/conflict/a.json"
    }
  ]
}' "$gavel" eval -d $fx/conflict data
v0_copy=$(mktemp -d)
cp examples/admission/*.rego "$v0_copy"/  # without examples/admission/.manifest (rego_version 0)
"$gavel" eval -d "$v0_copy" 'data.kubernetes.admission.deny' > "$out" 2> "$err"
if [[ $? -eq 2 ]] && grep -q '"code": "rego_parse_error"' "$out" &&
   grep -q "\"file\": \"$v0_copy/image-registry.rego\"" "$out"; then
    echo "ok   v0 policy in v1 mode: rego_parse_error naming the file"
else fail "v0 policy in v1 mode: rego_parse_error naming the file"; cat "$out" "$err"; fi
rm -rf "$v0_copy"
check "v0 example in v1 mode: examples/admission/.manifest says rego_version 0" 0 "$deny_json" \
    "$gavel" eval -d examples/admission -i examples/admission/pod.json 'data.kubernetes.admission.deny'
check "missing input file" 2 '' "$gavel" eval -i does/not/exist.json input
check "--fail and --fail-defined together" 1 '' "$gavel" eval --fail --fail-defined 'true'
check "bad --timeout" 1 '' "$gavel" eval --timeout 5parsecs 'true'
check "a generous --timeout" 0 '{}' "$gavel" eval --timeout 10s 'input.x'

"$gavel" eval --metrics '1 == 1' > "$out" 2> "$err"
if grep -q '"timer_rego_query_eval_ns": [0-9]' "$out"; then echo "ok   --metrics"; else fail "--metrics"; cat "$out"; fi

# bench: prepares once, loops, reports per-operation numbers.
"$gavel" bench --benchtime 20ms -d examples/admission-v1 -i examples/admission-v1/pod.json \
    'data.kubernetes.admission.deny' > "$out" 2> "$err"
if [[ $? -eq 0 ]] && grep -q 'ns/op' "$out" && grep -q 'allocs/op' "$out"; then echo "ok   bench pretty"; else
    fail "bench pretty"; cat "$out" "$err"; fi
"$gavel" bench --benchtime 20ms --format gobench --e2e -d examples/admission-v1 -i examples/admission-v1/pod.json \
    'data.kubernetes.admission.deny' > "$out" 2> "$err"
if grep -Eq '^BenchmarkOPAEval	 *[0-9]+	 *[0-9.]+ ns/op	 *[0-9]+ B/op	 *[0-9]+ allocs/op$' "$out"; then
    echo "ok   bench gobench"; else fail "bench gobench"; cat "$out" "$err"; fi
"$gavel" bench --benchtime 5ms 'input.nope' > "$out" 2> "$err"
if [[ $? -eq 1 ]] && grep -q 'undefined result' "$err"; then echo "ok   bench fails on undefined"; else
    fail "bench fails on undefined"; cat "$out" "$err"; fi

# -f pretty as OPA's tablewriter table: variables, then expressions that are not booleans; headers centred.
check "pretty: variables then non-boolean expressions" 0 '+---+---------+-------+
| x |    y    | x + 1 |
+---+---------+-------+
| 1 | "hello" | 2     |
+---+---------+-------+' "$gavel" eval -f pretty 'x := 1; x + 1; y := "hello"'

# --package and --import: where the query is written, as opa eval's.
first=$("$gavel" eval -f raw -d $fx/datadir 'data.lookup.first')
check "--package names the package's rules without data." 0 "$first" "$gavel" eval -f raw -d $fx/datadir --package lookup 'first'
check "--import binds a name" 0 "$first" "$gavel" eval -f raw -d $fx/datadir --import data.lookup 'lookup.first'
check "--import with an alias" 0 "$first" "$gavel" eval -f raw -d $fx/datadir --import 'data.lookup.first as f' 'f'
check "--ignore leaves a file out" 0 '' "$gavel" eval -f raw -d $fx/datadir --ignore 'lookup.rego' 'data.lookup.first'
check "--ignore of another name changes nothing" 0 "$first" "$gavel" eval -f raw -d $fx/datadir --ignore '*.yaml' 'data.lookup.first'
check "--package that does not parse" 2 '' "$gavel" eval -f pretty -d $fx/datadir --package 'look..up' 'first'

# --explain: the trace as OPA prints it (locations padded to the widest plus 4);
# notes and fails keep the chosen steps and the Enter steps leading to them.
ex=$fx/explain
check "--explain notes" 0 "query:1                                          Enter data.x.allow
test/e2e/fixtures/eval/explain/policy.rego:3     | Enter allow if {
test/e2e/fixtures/eval/explain/policy.rego:5     | | Note \"checking bad/a\"
test/e2e/fixtures/eval/explain/policy.rego:5     | | Note \"checking good/b\"
true" "$gavel" eval -f pretty -d $ex/policy.rego -i $ex/input.json --explain notes data.x.allow
check "--explain fails" 0 "query:1                                          Enter data.x.allow
test/e2e/fixtures/eval/explain/policy.rego:3     | Enter allow if {
test/e2e/fixtures/eval/explain/policy.rego:6     | | Fail startswith(c, \"good/\")  # c = \"bad/a\"
true" "$gavel" eval -f pretty -d $ex/policy.rego -i $ex/input.json --explain fails data.x.allow
"$gavel" eval -f pretty -d $ex/policy.rego -i $ex/input.json --explain full data.x.allow > "$out" 2>&1
if [[ $(grep -c ' Redo some c in input.containers' "$out") == 1 && $(grep -c '| | Exit allow if {' "$out") == 1 ]]; then
    echo "ok   --explain full shows every step"; else fail "--explain full"; cat "$out"; fi
"$gavel" eval -d $ex/policy.rego -i $ex/input.json --explain notes data.x.allow > "$out" 2>&1
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
notes = [e for e in d["explanation"] if e["Op"] == "Note"]
assert [n["Message"] for n in notes] == ["\"checking bad/a\"", "\"checking good/b\""], notes
assert all(n["Location"]["row"] == 5 for n in notes)
assert d["result"][0]["expressions"][0]["value"] is True
' "$out"; then echo "ok   --explain in JSON: explanation events"; else fail "--explain JSON"; cat "$out"; fi
check "--explain with a bad mode is a usage error" 1 '' "$gavel" eval --explain sometimes 'true'

# --coverage: OPA's report in JSON; the overall figure as a table in pretty.
"$gavel" eval -d $ex/policy.rego -i $ex/input.json --coverage data.x.allow > "$out" 2>&1
if python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["coverage"]
f = c["files"]["test/e2e/fixtures/eval/explain/policy.rego"]
assert f["covered"] == [{"start": {"row": 3}, "end": {"row": 6}}], f
assert f["not_covered"] == [{"start": {"row": 9}, "end": {"row": 11}}], f
assert c["covered_lines"] == 4 and c["not_covered_lines"] == 3 and c["coverage"] == 57.14, c
' "$out"; then echo "ok   --coverage JSON report"; else fail "--coverage JSON"; cat "$out"; fi
"$gavel" eval -f pretty -d $ex/policy.rego -i $ex/input.json --coverage data.x.allow > "$out" 2>&1
if grep -qxF '| Overall Coverage | 57.14 |' "$out"; then echo "ok   --coverage pretty summary"; else fail "--coverage pretty"; cat "$out"; fi

# --profile: one line per source line (time, evaluations, redos, expressions), with metrics;
# --profile-sort / --profile-limit order and cut it; --count aggregates.
"$gavel" eval -d $ex/policy.rego -i $ex/input.json --profile-sort num_eval --profile-limit 2 data.x.names > "$out" 2>&1
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["profile"]
assert len(p) == 2, p
assert p[0]["location"]["row"] == 11 and p[0]["num_eval"] == 2 and p[0]["num_redo"] == 2, p
assert all(e["total_time_ns"] > 0 for e in p)
assert "timer_rego_query_eval_ns" in d["metrics"]
' "$out"; then echo "ok   --profile-sort and --profile-limit"; else fail "--profile"; cat "$out"; fi
"$gavel" eval -f pretty -d $ex/policy.rego -i $ex/input.json --profile data.x.names > "$out" 2>&1
if grep -qE '^\| +TIME +\| NUM EVAL \| NUM REDO \| NUM GEN EXPR \| +LOCATION +\|$' "$out" &&
   grep -qE '^\| [0-9.]+[^ |]*s +\| 2 +\| 2 +\| 1 +\| test/e2e/fixtures/eval/explain/policy.rego:11 \|$' "$out"; then
    echo "ok   --profile pretty table"; else fail "--profile pretty"; cat "$out"; fi
"$gavel" eval -d $ex/policy.rego -i $ex/input.json --profile --count 3 data.x.names > "$out" 2>&1
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "metrics" not in d and "profile" not in d, d.keys()
m = d["aggregated_metrics"]["timer_rego_query_eval_ns"]
assert list(m) == ["75%", "90%", "95%", "99%", "99.9%", "99.99%", "count", "max", "mean", "median", "min", "stddev"], m
assert m["count"] == 3 and m["min"] <= m["median"] <= m["max"], m
a = d["aggregated_profile"]
assert a and a[0]["total_time_ns_stats"]["count"] == 3, a
' "$out"; then echo "ok   --count aggregates metrics and profile"; else fail "--count"; cat "$out"; fi
check "--count 0 is a usage error" 1 '' "$gavel" eval --count 0 'true'

# --memory-limit: an evaluation that would take more ends in eval_cancel_error (exit 2).
"$gavel" eval -d test/e2e/fixtures/serve/hungry --memory-limit 100Mi 'data.kubernetes.hungry.deny' > "$out" 2>&1
status=$?
if [[ $status == 2 ]] && grep -q '"code": "eval_cancel_error"' "$out" &&
   grep -q '"message": "evaluation exceeded its memory limit (104857600 bytes)"' "$out"; then
    echo "ok   --memory-limit ends a hungry evaluation"; else fail "--memory-limit (exit $status)"; cat "$out"; fi
# ... also when a builtin (numbers.range) crosses it and frees what it built before the error is reported.
"$gavel" eval --memory-limit 64Mi 'count(numbers.range(1, 100000000))' > "$out" 2>&1
status=$?
if [[ $status == 2 ]] && grep -q '"message": "evaluation exceeded its memory limit (67108864 bytes)"' "$out"; then
    echo "ok   --memory-limit ends a long numbers.range, naming the limit"; else fail "--memory-limit in a builtin (exit $status)"; cat "$out"; fi
# ... and when a builtin's result would cross it: refused before it is built (the real
# allocation counter, which the unit tests stand in for), the limit named, never undefined.
for q in 'count(replace(replace(replace(concat("", [s | some i in numbers.range(1, 100000); s := "ab"]), "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa")) > 0' \
         'count(graph.reachable_paths({"0": ["1","2","3","4","5","6","7","8","9"], "1": ["0","2","3","4","5","6","7","8","9"], "2": ["0","1","3","4","5","6","7","8","9"], "3": ["0","1","2","4","5","6","7","8","9"], "4": ["0","1","2","3","5","6","7","8","9"], "5": ["0","1","2","3","4","6","7","8","9"], "6": ["0","1","2","3","4","5","7","8","9"], "7": ["0","1","2","3","4","5","6","8","9"], "8": ["0","1","2","3","4","5","6","7","9"], "9": ["0","1","2","3","4","5","6","7","8"]}, {"0"})) > 0' \
         'count(sprintf(concat("", [s | some i in numbers.range(1, 100); s := "%1000000d"]), numbers.range(1, 100))) > 0'; do
    "$gavel" eval --memory-limit 64Mi "$q" > "$out" 2>&1
    status=$?
    if [[ $status == 2 ]] && grep -q '"message": "evaluation exceeded its memory limit (67108864 bytes)"' "$out"; then
        echo "ok   --memory-limit stops ${q:6:30}..."; else fail "--memory-limit in ${q:6:30} (exit $status)"; cat "$out"; fi
done
# A file a builtin reads must be a regular file: /dev/zero is an error at once, not a read that never ends.
check "http.send with a tls_client_cert_file of /dev/zero" 0 'read /dev/zero: not a regular file' timeout 10 "$gavel" eval -f raw 'http.send({"method": "get", "url": "https://example.com", "tls_client_cert_file": "/dev/zero", "tls_client_key_file": "/dev/zero", "raise_error": false}).error.message'
check "--memory-limit that is not a size is a usage error" 1 '' "$gavel" eval --memory-limit lots 'true'

rm -f "$out" "$err" "$out.diff"
finish
