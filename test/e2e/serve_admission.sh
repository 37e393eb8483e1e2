#!/usr/bin/env bash
# gavel serve end to end over HTTPS on loopback: admission decisions (conventional
# rules, system.main, v1beta1, mutation), 400/413, evaluation errors and timeouts,
# the OPA REST API as kube-mgmt calls it (on its own listener), metrics and the decision log.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

echo "s3cret-token" > "$work/token"
start_server main --policies "$fx/policies" --ca-dump "$work/ca.pem" --eval-timeout 500ms \
    --decision-log --authentication token --token-file "$work/token" || exit 1
base="https://localhost:$main_port"
rest="http://127.0.0.1:$main_rest_port"   # the REST API's own listener (plain HTTP, loopback)
diag="http://127.0.0.1:$main_diag_port"   # health and metrics
c() { curl -sS --cacert "$work/ca.pem" "$@"; }
auth=(-H "Authorization: Bearer s3cret-token")

# post PATH FILE -> response body in $work/r.json, status in $code
post() { code=$(c -o "$work/r.json" -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @"$2" "$base$1"); }

# ---- deny with messages, warnings, audit annotations ---------------------------------
post /validate/kubernetes/validating "$fx/reviews/pod-bad.json"
expect_eq "deny: HTTP 200" "$code" 200
expect_eq "deny: allowed false" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" false
expect_eq "deny: status.code 403" "$(json_get "$work/r.json" input.response.status.code)" 403
expect_eq "deny: status.reason" "$(json_get "$work/r.json" input.response.status.reason)" Forbidden
expect_eq "deny: messages joined (deny and violation)" "$(json_get "$work/r.json" input.response.status.message)" \
    "image 'mysql' comes from untrusted registry, image 'nginx' comes from untrusted registry, pods must not run privileged containers"
expect_eq "deny: uid echoed" "$(json_get "$work/r.json" input.response.uid)" 0f1c8a3e-bad0-4d2e-9b7c-000000000001
expect_eq "deny: apiVersion" "$(json_get "$work/r.json" input.apiVersion)" admission.k8s.io/v1
expect_eq "deny: kind" "$(json_get "$work/r.json" input.kind)" AdmissionReview
expect_eq "warnings" "$(json_get "$work/r.json" 'json.marshal(input.response.warnings)')" '["pod has no team label"]'
expect_eq "auditAnnotations" "$(json_get "$work/r.json" 'input.response.auditAnnotations["gavel.dev/checked"]')" true
ctype=$(c -o /dev/null -w '%{content_type}' --data-binary @"$fx/reviews/pod-bad.json" "$base/validate/kubernetes/validating")
expect_eq "Content-Type application/json" "$ctype" application/json

# ---- allow ------------------------------------------------------------------------------
post /validate/kubernetes/validating "$fx/reviews/pod-good.json"
expect_eq "allow: allowed true" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" true
expect_eq "allow: no status, no warnings" "$(json_get "$work/r.json" '[object.get(input.response, "status", 0), object.get(input.response, "warnings", 0)]')" '[0,0]'
expect_eq "allow: uid echoed" "$(json_get "$work/r.json" input.response.uid)" 0f1c8a3e-600d-4d2e-9b7c-000000000002

# ---- code/reason from a deny object -------------------------------------------------------
"$gavel" eval --format raw -i "$fx/reviews/pod-good.json" 'json.marshal(json.patch(input, [{"op": "add", "path": "/request/object/spec/replicas", "value": 11}]))' > "$work/replicas.json"
post /validate/kubernetes/coded "$work/replicas.json"
expect_eq "deny object: status.code from code" "$(json_get "$work/r.json" input.response.status.code)" 422
expect_eq "deny object: status.reason from reason" "$(json_get "$work/r.json" input.response.status.reason)" Invalid

# ---- mutation: decode the base64 patch and apply it ------------------------------------------
post /mutate/kubernetes/mutating "$fx/reviews/pod-good.json"
expect_eq "mutate: allowed" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" true
expect_eq "mutate: patchType" "$(json_get "$work/r.json" input.response.patchType)" JSONPatch
json_get "$work/r.json" input.response.patch | base64 -d > "$work/patch.json"
expect_eq "mutate: paths escaped (~1, ~0)" "$(json_get "$work/patch.json" '[op.path | some op in input]')" \
    '["/metadata/annotations","/metadata/annotations/gavel.dev~1owner~0team"]'
printf '{"object": %s, "patch": %s}' "$(json_get "$fx/reviews/pod-good.json" 'json.marshal(input.request.object)')" "$(cat "$work/patch.json")" > "$work/topatch.json"
json_get "$work/topatch.json" 'json.marshal(json.patch(input.object, input.patch))' > "$work/patched.json"
expect_eq "mutate: patch applies" "$(json_get "$work/patched.json" 'input.metadata.annotations["gavel.dev/owner~team"]')" platform

# ---- v1beta1 ----------------------------------------------------------------------------------
post /validate/kubernetes/validating "$fx/reviews/pod-bad-v1beta1.json"
expect_eq "v1beta1: apiVersion answered" "$(json_get "$work/r.json" input.apiVersion)" admission.k8s.io/v1beta1
expect_eq "v1beta1: uid" "$(json_get "$work/r.json" input.response.uid)" 0f1c8a3e-b1b1-4d2e-9b7c-000000000001
expect_eq "v1beta1: denied" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" false

# ---- system.main via POST / ----------------------------------------------------------------------
post / "$fx/reviews/pod-bad.json"
expect_eq "system.main: denied" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" false
expect_eq "system.main: message" "$(json_get "$work/r.json" input.response.status.message)" \
    "image 'mysql' comes from untrusted registry, image 'nginx' comes from untrusted registry"
expect_eq "system.main: uid filled in" "$(json_get "$work/r.json" input.response.uid)" 0f1c8a3e-bad0-4d2e-9b7c-000000000001
post / "$fx/reviews/pod-good.json"
expect_eq "system.main: allowed" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" true

# ---- 400s -----------------------------------------------------------------------------------------
bad400() {  # NAME BODY
    printf '%s' "$2" > "$work/bad.json"
    post /validate/kubernetes/validating "$work/bad.json"
    if [[ $code == 400 && $(json_get "$work/r.json" input.code) == invalid_parameter ]]; then pass "400: $1"
    else fail "400: $1: HTTP $code $(cat "$work/r.json")"; fi
}
bad400 "malformed JSON" '{"kind": "AdmissionReview", '
bad400 "wrong kind" '{"kind": "Pod", "apiVersion": "admission.k8s.io/v1", "request": {"uid": "x"}}'
bad400 "wrong apiVersion" '{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v2", "request": {"uid": "x"}}'
bad400 "missing uid" '{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": {}}'
bad400 "not an object" '[1, 2, 3]'
bad400 "empty body" ''
expect_eq "400: message names the problem" "$(printf '%s' '{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": {}}' > "$work/bad.json"; post /validate/x "$work/bad.json"; json_get "$work/r.json" input.message)" "request.uid is missing"

# ---- 413 (with and without Expect: 100-continue) ----------------------------------------------------
head -c $((4 * 1024 * 1024)) /dev/zero | tr '\0' ' ' > "$work/big.json"
code=$(c -o "$work/r.json" -w '%{http_code}' --data-binary @"$work/big.json" "$base/validate/kubernetes/validating")
expect_eq "413 beyond 3 MiB" "$code" 413
code=$(c -o "$work/r.json" -w '%{http_code}' -H 'Expect:' --data-binary @"$work/big.json" "$base/validate/kubernetes/validating")
expect_eq "413 without Expect" "$code" 413
post /validate/kubernetes/validating "$fx/reviews/pod-good.json"
expect_eq "server still answers after 413" "$code" 200

# ---- evaluation errors and timeouts -> 500 denials -----------------------------------------------------
post /validate/kubernetes/conflict "$fx/reviews/pod-good.json"
expect_eq "eval error: HTTP 200" "$code" 200
expect_eq "eval error: denied" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" false
expect_eq "eval error: status.code 500" "$(json_get "$work/r.json" input.response.status.code)" 500
expect_eq "eval error: message names the error" "$(json_get "$work/r.json" 'contains(input.response.status.message, "eval_conflict_error")')" true
"$gavel" eval --format raw -i "$fx/reviews/pod-good.json" 'json.marshal(json.patch(input, [{"op": "add", "path": "/request/object/spec/n", "value": 30000}]))' > "$work/slow.json"
start=$(date +%s%N)
post /validate/kubernetes/slow "$work/slow.json"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect_eq "timeout: denied" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" false
expect_eq "timeout: status.code 500" "$(json_get "$work/r.json" input.response.status.code)" 500
expect_eq "timeout: message says timed out" "$(json_get "$work/r.json" 'contains(input.response.status.message, "timed out")')" true
if (( elapsed_ms < 4000 )); then pass "timeout: answered in ${elapsed_ms} ms"; else fail "timeout took ${elapsed_ms} ms"; fi

# ---- keep-alive: two requests, one connection ------------------------------------------------------------
c -v -o /dev/null -o /dev/null --data-binary @"$fx/reviews/pod-good.json" "$base/validate/kubernetes/validating" "$base/validate/kubernetes/validating" 2> "$work/keepalive.txt"
if grep -qi "re-using existing connection" "$work/keepalive.txt"; then pass "keep-alive"; else fail "keep-alive: connection not reused"; fi

# ---- OPA REST API as kube-mgmt uses it: replicated Ingresses change the decision -----------------------------
post /validate/kubernetes/ingress "$fx/reviews/ingress.json"
expect_eq "ingress: allowed before replication" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" true
code=$(c -o /dev/null -w '%{http_code}' -X PUT "$rest/v1/data/kubernetes/ingresses/prod/shop" --data-binary @"$fx/ingress-prod.json")
expect_eq "REST: PUT without token -> 401" "$code" 401
code=$(c -o /dev/null -w '%{http_code}' "${auth[@]}" -X PUT -H 'Content-Type: application/json' "$rest/v1/data/kubernetes/ingresses/prod/shop" --data-binary @"$fx/ingress-prod.json")
expect_eq "REST: PUT /v1/data/kubernetes/ingresses/prod/shop -> 204" "$code" 204
post /validate/kubernetes/ingress "$fx/reviews/ingress.json"
expect_eq "ingress: denied after PUT" "$(json_get "$work/r.json" input.response.status.message)" \
    'invalid ingress host "shop.example.com" (conflicts with prod/shop)'
c "${auth[@]}" "$rest/v1/data/kubernetes/ingresses/prod/shop/metadata/name" > "$work/get.json"
# With decision logs on, every answer carries its decision_id (as OPA's).
expect_eq "REST: GET /v1/data" "$(json_get "$work/get.json" 'json.marshal(object.remove(input, ["decision_id"]))')" '{"result":"shop"}'
expect_eq "REST: decision id" "$(json_get "$work/get.json" 'json.marshal(count(input.decision_id))')" 36
c "${auth[@]}" "$rest/v1/data/kubernetes/ingresses/nowhere" > "$work/get.json"
expect_eq "REST: GET undefined -> {}" "$(json_get "$work/get.json" 'json.marshal(object.remove(input, ["decision_id"]))')" '{}'
code=$(c -o /dev/null -w '%{http_code}' "${auth[@]}" -X PUT -H 'If-None-Match: *' "$rest/v1/data/kubernetes/ingresses/prod/shop" --data-binary '{}')
expect_eq "REST: PUT If-None-Match on existing -> 304" "$code" 304
code=$(c -o /dev/null -w '%{http_code}' "${auth[@]}" -X PATCH -H 'Content-Type: application/json-patch+json' \
    "$rest/v1/data/kubernetes/ingresses/prod/shop" --data-binary '[{"op": "remove", "path": "/"}]')
expect_eq "REST: PATCH remove (kube-mgmt delete) -> 204" "$code" 204
post /validate/kubernetes/ingress "$fx/reviews/ingress.json"
expect_eq "ingress: allowed again after removal" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" true
code=$(c -o "$work/r.json" -w '%{http_code}' "${auth[@]}" -X DELETE "$rest/v1/data/kubernetes/ingresses/prod/shop")
expect_eq "REST: DELETE missing -> 404" "$code:$(json_get "$work/r.json" input.code)" 404:resource_not_found
code=$(c -o /dev/null -w '%{http_code}' "${auth[@]}" -X PUT "$rest/v1/data/kubernetes/ingresses" --data-binary '{"prod": {"a": {"spec": {"rules": [{"host": "shop.example.com"}]}}}}')
expect_eq "REST: PUT a whole resource map" "$code" 204
post /validate/kubernetes/ingress "$fx/reviews/ingress.json"
expect_eq "ingress: denied by the listed map" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" false
code=$(c -o /dev/null -w '%{http_code}' "${auth[@]}" -X DELETE "$rest/v1/data/kubernetes/ingresses")
expect_eq "REST: DELETE -> 204" "$code" 204
c "${auth[@]}" -X POST "$rest/v1/data/kubernetes/validating/deny" --data-binary "{\"input\": $(cat "$fx/reviews/pod-good.json" | tr -d '\n')}" > "$work/get.json"
expect_eq "REST: POST /v1/data with input" "$(json_get "$work/get.json" 'json.marshal(object.remove(input, ["decision_id"]))')" '{"result":[]}'

# ---- policies API ----------------------------------------------------------------------------------
code=$(c -o "$work/r.json" -w '%{http_code}' "${auth[@]}" -X PUT "$rest/v1/policies/default/extra/policy.rego" \
    --data-binary $'package kubernetes.extra\n\ndeny contains "extra says no" if input.request.kind.kind == "Pod"\n')
expect_eq "policies: PUT -> 200 {}" "$code $(cat "$work/r.json")" "200 {}"
post /validate/kubernetes/extra "$fx/reviews/pod-good.json"
expect_eq "policies: new policy decides" "$(json_get "$work/r.json" input.response.status.message)" "extra says no"
c "${auth[@]}" "$rest/v1/policies/default/extra/policy.rego" > "$work/r.json"
expect_eq "policies: GET by id" "$(json_get "$work/r.json" input.result.id)" default/extra/policy.rego
code=$(c -o "$work/r.json" -w '%{http_code}' "${auth[@]}" -X PUT "$rest/v1/policies/broken.rego" --data-binary $'package broken\n\nx := \n')
expect_eq "policies: broken -> 400" "$code" 400
expect_eq "policies: error has a location" "$(json_get "$work/r.json" '[input.errors[0].code, input.errors[0].location.file]')" '["rego_parse_error","broken.rego"]'
code=$(c -o "$work/r.json" -w '%{http_code}' "${auth[@]}" -X PUT "$rest/v1/policies/unsafe.rego" --data-binary $'package unsafe\n\np if x > 1\n')
expect_eq "policies: compile error -> 400, nothing changed" "$code $(json_get "$work/r.json" input.errors[0].code)" "400 rego_unsafe_var_error"
post /validate/kubernetes/validating "$fx/reviews/pod-bad.json"
expect_eq "policies: decisions unaffected by the rejected policy" "$(json_get "$work/r.json" input.response.status.code)" 403
code=$(c -o /dev/null -w '%{http_code}' "${auth[@]}" -X DELETE "$rest/v1/policies/default/extra/policy.rego")
expect_eq "policies: DELETE -> 200" "$code" 200
post /validate/kubernetes/extra "$fx/reviews/pod-good.json"
expect_eq "policies: deleted policy no longer decides (unknown package: 500 denial)" "$(json_get "$work/r.json" input.response.status.message)" \
    "policy evaluation failed: no policy defines package data.kubernetes.extra"

# ---- /v1/query ------------------------------------------------------------------------------------------
c "${auth[@]}" -X POST "$rest/v1/query" --data-binary '{"query": "x := input.a + 1", "input": {"a": 41}}' > "$work/r.json"
expect_eq "query: bindings" "$(cat "$work/r.json")" '{"result":[{"x":42}]}'

# ---- health, metrics, decision log --------------------------------------------------------------------------
expect_eq "health" "$(c "$diag/health")" "{}"
expect_eq "health/ready" "$(c -o /dev/null -w '%{http_code}' "$diag/health/ready")" 200
c "$diag/metrics" > "$work/metrics.txt"
grep -q 'gavel_http_requests_total{endpoint="/validate",decision="denied",code="200"}' "$work/metrics.txt" && pass "metrics: denied counter" || fail "metrics: denied counter"
grep -q 'gavel_http_requests_total{endpoint="/validate",decision="error",code="200"}' "$work/metrics.txt" && pass "metrics: error counter" || fail "metrics: error counter"
grep -q 'gavel_http_request_duration_seconds_bucket{endpoint="/validate",le="0.0001"}' "$work/metrics.txt" && pass "metrics: sub-ms buckets" || fail "metrics: sub-ms buckets"
grep -q '^gavel_config_info{hash="[0-9a-f]\{64\}"} 1' "$work/metrics.txt" && pass "metrics: config hash" || fail "metrics: config hash"
grep -q '^gavel_http_requests_in_flight 1' "$work/metrics.txt" && pass "metrics: in flight (this request)" || fail "metrics: in flight"
# OPA's decision log event on stdout: the input (with the review's uid), a UUID decision_id, the path.
if grep '"uid":"0f1c8a3e-bad0-4d2e-9b7c-000000000001"' "$main_out" | grep '"msg":"Decision Log"' |
    grep '"decision_id":"[0-9a-f]\{8\}-[0-9a-f]\{4\}-4[0-9a-f]\{3\}-[89ab][0-9a-f]\{3\}-[0-9a-f]\{12\}"' > /dev/null; then
    # (not grep -q: it may exit before the greps before it have written all, and with
    # pipefail their SIGPIPE failed the check now and then)
    pass "decision log"; else fail "decision log"; head -3 "$main_out"; fi

stop_server "$main_pid"

# ---- --fail-open: an evaluation error allows, with a warning (plain HTTP, warned about) -----------------------
start_server open --policies "$fx/policies" --fail-open --insecure-http || exit 1
grep -q '"level":"warn".*insecure-http' "$open_log" && pass "insecure-http warns" || fail "insecure-http warning missing"
curl -sS -o "$work/r.json" --data-binary @"$fx/reviews/pod-good.json" "http://127.0.0.1:$open_port/validate/kubernetes/conflict"
expect_eq "fail-open: allowed" "$(json_get "$work/r.json" "json.marshal(input.response.allowed)")" true
expect_eq "fail-open: warning" "$(json_get "$work/r.json" 'startswith(input.response.warnings[0], "gavel: policy evaluation failed")')" true
# ---- garbage on the wire: answered or closed, never a crash ---------------------------------------------
raw() {  # sends stdin on a fresh connection, prints the status line of the answer
    exec 5<> "/dev/tcp/127.0.0.1/$open_port"
    cat >&5
    timeout 5 cat <&5 | head -1 | tr -d '\r'
    exec 5>&-
}
expect_eq "random bytes -> 400" "$(head -c 65536 /dev/urandom | raw)" "HTTP/1.1 400 Bad Request"
expect_eq "bad chunked body -> 400" "$(printf 'POST /validate/x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n' | raw)" "HTTP/1.1 400 Bad Request"
expect_eq "huge header -> 431" "$(printf 'GET / HTTP/1.1\r\nHost: a\r\nX: %s\r\n\r\n' "$(head -c 100000 /dev/zero | tr '\0' a)" | raw)" \
    "HTTP/1.1 431 Request Header Fields Too Large"
deep=$(printf '%.0s[' $(seq 1 3000))1$(printf '%.0s]' $(seq 1 3000))
printf '{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{"uid":"x","object":%s}}' "$deep" > "$work/deep.json"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$work/deep.json" "http://127.0.0.1:$open_port/validate/kubernetes/validating")
expect_eq "3000-deep JSON -> 400" "$code" 400
code=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$open_diag_port/health")
expect_eq "still serving after the garbage" "$code" 200
post_open() { curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" "http://127.0.0.1:$open_port/validate/kubernetes/validating"; }
expect_eq "still deciding after the garbage" "$(post_open)" 200
stop_server "$open_pid"

finish
