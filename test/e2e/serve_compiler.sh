#!/usr/bin/env bash
# gavel serve and the compiler (issue 15): policies, queries and data that
# crashed or misled the server are refused with OPA's errors and the server
# keeps serving what it had; a false decision reads as false.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

put() { cat > "$work/.staging" && mv "$work/.staging" "$1"; }
mkdir -p "$work/policies" "$work/data"
put "$work/policies/q.rego" <<'REGO'
package q

default allow := false

allow if input.user == "admin"
REGO

start_server s --policies "$work/policies" --data "$work/data" --insecure-http --reload-interval 100ms || exit 1
base="http://127.0.0.1:$s_rest_port"  # the REST API
diag="http://127.0.0.1:$s_diag_port"
alive() { curl -sS -o /dev/null -w '%{http_code}' "$diag/health"; }
metric() { curl -sS "$diag/metrics" | grep "^gavel_reloads_total{status=\"$1\"}" | cut -d' ' -f2; }
wait_for() {
    local got=""
    for _ in $(seq 1 100); do got=$($1); [[ $got == "$2" ]] && break; sleep 0.1; done
    echo "$got"
}
python3 - "$work" <<'EOF'
import json, sys
w = sys.argv[1]
# Past the parser's limits (OPA's: 100,000 recursive parser calls; gavel's: 100,000 expression
# levels, 50,000 nested brackets): 3,000-term chains are within them and evaluate.
open(f"{w}/plus.rego", "w").write("package deep\n\nx := " + "+".join(["1"] * 100001) + "\n")
open(f"{w}/else.rego", "w").write("package deep\n\nx := 0 if { false }\n" + "".join(f"else := {i} if {{ false }}\n" for i in range(1, 12000)) + "else := 1\n")
json.dump({"query": "x := " + "+".join(["1"] * 100001)}, open(f"{w}/deep_query.json", "w"))
json.dump({"query": "x := " + "(" * 50001 + "{1}" + ")" * 50001}, open(f"{w}/nested_query.json", "w"))
json.dump({"query": "x := " + "|".join(["{1}"] * 3000)}, open(f"{w}/union_query.json", "w"))
EOF

# ---- a single value keeps its value: false is {"result": false} --------------------------------
curl -sS "$base/v1/data/q/allow" -o "$work/r.json"
expect_eq "GET /v1/data: a false rule is {\"result\": false}" "$(cat "$work/r.json")" '{"result":false}'
curl -sS -X POST "$base/v1/data/q/allow" -d '{"input": {"user": "admin"}}' -o "$work/r.json"
expect_eq "POST /v1/data: true with input" "$(cat "$work/r.json")" '{"result":true}'
# /v1/query answers with bindings only, as OPA's: a false single expression is
# still a result (with nothing bound), an undefined one is no result at all.
curl -sS -X POST "$base/v1/query" -d '{"query": "1 == 2"}' -o "$work/r.json"
expect_eq "POST /v1/query: 1 == 2 is a result" "$(cat "$work/r.json")" '{"result":[{}]}'
curl -sS -X POST "$base/v1/query" -d '{"query": "x := data.q.allow"}' -o "$work/r.json"
expect_eq "POST /v1/query: a false rule binds false" "$(cat "$work/r.json")" '{"result":[{"x":false}]}'
curl -sS -X POST "$base/v1/query" -d '{"query": "input.nope"}' -o "$work/r.json"
expect_eq "POST /v1/query: undefined is no result" "$(cat "$work/r.json")" '{}'

# ---- PUT /v1/policies: what crashed the server is a 400 with OPA's error ----------------------
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT "$base/v1/policies/crash.rego" \
    --data-binary $'package a\n\nn if { d := [1 | true]; m > 1 }\n')
expect_eq "PUT /v1/policies: unsafe var after a comprehension -> 400" \
    "$code $(json_get "$work/r.json" 'concat(" ", [input.errors[0].code, input.errors[0].message, sprintf("%v", [input.errors[0].location.row]), sprintf("%v", [input.errors[0].location.col])])')" \
    "400 rego_unsafe_var_error var m is unsafe 3 25"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT "$base/v1/policies/plus.rego" --data-binary @"$work/plus.rego")
expect_eq "PUT /v1/policies: a 100,001-term chain -> 400, OPA's message" "$code $(json_get "$work/r.json" 'input.errors[0].message')" \
    "400 max parsing recursion depth exceeded"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT "$base/v1/policies/else.rego" --data-binary @"$work/else.rego")
expect_eq "PUT /v1/policies: 12,000 else branches -> 400 naming the limit" "$code $(json_get "$work/r.json" 'input.errors[0].message')" \
    "400 else chain exceeds the limit of 10000 branches"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT "$base/v1/policies/types.rego" --data-binary $'package t\n\nx := upper(1)\n')
expect_eq "PUT /v1/policies: a type error -> 400, message and OPA's details object" \
    "$code $(json_get "$work/r.json" 'concat(" ", [input.errors[0].message, input.errors[0].details.want.args[0].name])')" \
    "400 upper: invalid argument(s) x"
expect_eq "server alive after bad policies" "$(alive)" "200"

# ---- POST /v1/query: queries past the limits are 400s, a 3,000-set union is answered -----------
for q in deep nested; do
    code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X POST "$base/v1/query" --data-binary @"$work/${q}_query.json")
    expect_eq "POST /v1/query: a $q query past the limit -> 400, OPA's message" "$code $(json_get "$work/r.json" 'input.errors[0].message')" \
        "400 max parsing recursion depth exceeded"
done
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X POST "$base/v1/query" --data-binary @"$work/union_query.json")
expect_eq "POST /v1/query: a 3,000-set union is answered" "$code $(json_get "$work/r.json" 'input.result[0].x')" "200 [1]"
expect_eq "server alive after deep queries" "$(alive)" "200"

# ---- PUT /v1/data at a rule's path: 400, nothing changed ----------------------------------------
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT "$base/v1/data/q/allow" -d 'true')
expect_eq "PUT /v1/data at a rule's path -> 400 conflicting rule" \
    "$code $(json_get "$work/r.json" 'input.code') $(json_get "$work/r.json" 'input.message')" \
    "400 invalid_parameter 1 error occurred: $work/policies/q.rego:3: rego_compile_error: conflicting rule for data path q/allow found"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT "$base/v1/data/q" -d '{"allow": true}')
expect_eq "PUT /v1/data above a rule's path -> 400" "$code" "400"
curl -sS "$base/v1/data/q/allow" -o "$work/r.json"
expect_eq "the rule still decides after the refused PUTs" "$(cat "$work/r.json")" '{"result":false}'
code=$(curl -sS -o /dev/null -w '%{http_code}' -X PUT "$base/v1/data/other" -d '{"allow": true}')
expect_eq "PUT /v1/data elsewhere -> 204" "$code" "204"

# ---- hot reload: a conflicting data file or a crashing policy keeps the last good program ------
failures_before=$(metric failure); failures_before=${failures_before:-0}
echo '{"q": {"allow": true}}' | put "$work/data/conflict.json"   # data.q.allow: the rule's path
expect_eq "reload with a data conflict counted as failure" "$(wait_for "metric failure" $((failures_before + 1)))" $((failures_before + 1))
grep -q "conflicting rule for data path q/allow found" "$s_log" && pass "reload conflict logged" || fail "reload conflict not logged"
curl -sS "$base/v1/data/q/allow" -o "$work/r.json"
expect_eq "last good program kept after a conflicting data file" "$(cat "$work/r.json")" '{"result":false}'
rm -f "$work/data/conflict.json"

cp "$work/plus.rego" "$work/.staging" && mv "$work/.staging" "$work/policies/plus.rego"
expect_eq "reload with a 100,001-term chain counted as failure" "$(wait_for "metric failure" $((failures_before + 2)))" $((failures_before + 2))
grep -q "max parsing recursion depth exceeded" "$s_log" && pass "reload depth error logged" || fail "reload depth error not logged"
expect_eq "server alive after a deep policy on disk" "$(alive)" "200"
curl -sS "$base/v1/data/q/allow" -o "$work/r.json"
expect_eq "last good program kept after a deep policy" "$(cat "$work/r.json")" '{"result":false}'

stop_server "$s_pid"
finish
