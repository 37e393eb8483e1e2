#!/usr/bin/env bash
# gavel serve's three listeners: admission only on --addr, the REST API only on
# --rest-addr (loopback by default, bearer token kept), health and metrics only
# on --diagnostic-addr (plain HTTP). A pod that reaches the webhook port cannot
# rewrite policies; each listener can be turned off or fail to bind cleanly.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

echo "s3cret-token" > "$work/token"
start_server split --policies "$fx/policies" --ca-dump "$work/ca.pem" --authentication token --token-file "$work/token" || exit 1
adm="https://localhost:$split_port"
rest="http://127.0.0.1:$split_rest_port"
diag="http://127.0.0.1:$split_diag_port"
auth=(-H "Authorization: Bearer s3cret-token")
status() { curl -sS --cacert "$work/ca.pem" -o "$work/r.json" -w '%{http_code}' "$@"; }
message() { json_get "$work/r.json" input.message; }

expect_eq "three listening lines, one per listener" \
    "$(grep '"msg":"listening"' "$split_log" | grep -o '"listener":"[a-z]*"' | tr '\n' ' ')" \
    '"listener":"diagnostic" "listener":"rest" "listener":"admission" '
[[ $split_port != "$split_rest_port" && $split_rest_port != "$split_diag_port" ]] && pass "three ports" || fail "ports shared"

# ---- the admission listener: admission only ---------------------------------------------------------
expect_eq "admission: decides" "$(status --data-binary @"$fx/reviews/pod-bad.json" "$adm/validate/kubernetes/validating")" 200
rego=$'package kubernetes.validating\n\ndeny := set()\n'
expect_eq "admission: PUT /v1/policies is not there (even with the token)" \
    "$(status -X PUT "${auth[@]}" --data-binary "$rego" "$adm/v1/policies/takeover.rego")" 404
expect_eq "admission: the 404 names --rest-addr" "$(message)" "not found: /v1/policies/takeover.rego (the REST API is served on --rest-addr)"
expect_eq "admission: PUT /v1/data is not there" "$(status -X PUT --data-binary '{}' "$adm/v1/data/x")" 404
status --data-binary @"$fx/reviews/pod-bad.json" "$adm/validate/kubernetes/validating" > /dev/null
expect_eq "admission: the denial stands" "$(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" false
expect_eq "admission: /health is not there" "$(status "$adm/health")" 404
expect_eq "admission: the 404 names --diagnostic-addr" "$(message)" "not found: /health (health and metrics are served on --diagnostic-addr)"
expect_eq "admission: /metrics is not there" "$(status "$adm/metrics")" 404

# ---- the REST listener: /v1 only, token required --------------------------------------------------------
grep '"listener":"rest"' "$split_log" | grep -q '"authentication":"token"' && pass "rest: listening line says token" || fail "rest: authentication not logged"
expect_eq "rest: no token -> 401" "$(status -X PUT --data-binary '{"a": 1}' "$rest/v1/data/x")" 401
expect_eq "rest: wrong token -> 401" "$(status -X PUT -H 'Authorization: Bearer nope' --data-binary '{"a": 1}' "$rest/v1/data/x")" 401
expect_eq "rest: with the token -> 204" "$(status -X PUT "${auth[@]}" --data-binary '{"a": 1}' "$rest/v1/data/x")" 204
expect_eq "rest: GET" "$(status "${auth[@]}" "$rest/v1/data/x/a"; cat "$work/r.json")" '200{"result":1}'
expect_eq "rest: policies" "$(status "${auth[@]}" "$rest/v1/policies")" 200
expect_eq "rest: query" "$(status "${auth[@]}" -X POST --data-binary '{"query": "x := 1"}' "$rest/v1/query"; cat "$work/r.json")" '200{"result":[{"x":1}]}'
expect_eq "rest: no admission" "$(status "${auth[@]}" --data-binary @"$fx/reviews/pod-bad.json" "$rest/validate/kubernetes/validating")" 404
# OPA's REST API answers as OPA: Go's 404 page; health is served there too (behind the token).
expect_eq "rest: Go's 404 page" "$(cat "$work/r.json")" "404 page not found"
expect_eq "rest: health needs the token" "$(status "$rest/health")" 401
expect_eq "rest: health" "$(status "${auth[@]}" "$rest/health")" 200

# ---- the diagnostic listener: health and metrics, nothing else ------------------------------------------
expect_eq "diagnostic: /health" "$(status "$diag/health")" 200
expect_eq "diagnostic: /health/ready" "$(status "$diag/health/ready")" 200
expect_eq "diagnostic: /health?bundles (OPA's readiness)" "$(status "$diag/health?bundles")" 200
expect_eq "diagnostic: /metrics" "$(status "$diag/metrics")" 200
grep -q '^gavel_http_requests_total{endpoint="/v1/data",decision="",code="204"} 1' "$work/r.json" && pass "diagnostic: metrics count REST requests" || fail "diagnostic: REST requests not counted"
grep -q '^gavel_eval_workers ' "$work/r.json" && pass "diagnostic: pool metrics" || fail "diagnostic: no pool metrics"
expect_eq "diagnostic: no REST API" "$(status -X PUT "${auth[@]}" --data-binary '{}' "$diag/v1/data/x")" 404
expect_eq "diagnostic: no admission" "$(status --data-binary @"$fx/reviews/pod-bad.json" "$diag/validate/kubernetes/validating")" 404
stop_server "$split_pid"

# ---- defaults, as OPA's: the REST API on loopback 8181, diagnostics on 8282 ---------------------------------
"$gavel" serve --help > "$work/help.txt"
grep -q -- '--rest-addr TEXT=127.0.0.1:8181' "$work/help.txt" && pass "default --rest-addr is 127.0.0.1:8181" || fail "default --rest-addr"
grep -q -- '--diagnostic-addr TEXT=:8282' "$work/help.txt" && pass "default --diagnostic-addr is :8282" || fail "default --diagnostic-addr"
grep -q -- '--rest-max-body UINT=268435456' "$work/help.txt" && pass "default --rest-max-body is 256 MiB" || fail "default --rest-max-body"
grep -q -- '--max-body UINT=3145728' "$work/help.txt" && pass "default --max-body is 3 MiB" || fail "default --max-body"

# ---- "off" (or an empty address) turns a listener off-----------------------------------------------------------------
start_server off --policies "$fx/policies" --insecure-http --rest-addr off --diagnostic-addr "" || exit 1
expect_eq "off: only the admission listener" "$(grep -c '"msg":"listening"' "$off_log")" 1
expect_eq "off: admission still decides" \
    "$(curl -sS -o /dev/null -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" "http://127.0.0.1:$off_port/validate/kubernetes/validating")" 200
stop_server "$off_pid"

# ---- a REST API off loopback is warned about -----------------------------------------------------------------
start_server wide --policies "$fx/policies" --insecure-http --rest-addr 0.0.0.0:0 || exit 1
grep -q '"level":"warn".*REST API (--rest-addr) is plain HTTP without authentication' "$wide_log" && pass "non-loopback REST API without a token: warned" \
    || fail "non-loopback REST API: no warning"
stop_server "$wide_pid"

# ---- bad or taken addresses fail startup with the listener's name ---------------------------------------------
"$gavel" serve --policies "$fx/policies" --insecure-http --addr 127.0.0.1:0 --rest-addr nonsense > /dev/null 2> "$work/err"
expect_eq "invalid --rest-addr: exit 1" "$?" 1
grep -q "invalid --rest-addr nonsense" "$work/err" && pass "invalid --rest-addr named" || fail "invalid --rest-addr: $(cat "$work/err")"
"$gavel" serve --policies "$fx/policies" --insecure-http --addr 127.0.0.1:0 --diagnostic-addr gavel.example.com:8282 > /dev/null 2> "$work/err"
expect_eq "a name as --diagnostic-addr (not resolved): exit 1" "$?" 1
exec 4< <(python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(30)')
holder=$!
read -r taken <&4
"$gavel" serve --policies "$fx/policies" --insecure-http --addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 \
    --diagnostic-addr "127.0.0.1:$taken" > /dev/null 2> "$work/err"
expect_eq "taken --diagnostic-addr: exit 1" "$?" 1
grep -q "cannot listen on 127.0.0.1:$taken (diagnostic)" "$work/err" && pass "taken port: listener named" || fail "taken port: $(cat "$work/err")"
kill "$holder" 2> /dev/null
exec 4<&-

finish
