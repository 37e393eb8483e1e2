#!/usr/bin/env bash
# gavel serve --manage-webhooks against a stand-in API server (fixtures/kube/
# fake_apiserver.py) that checks and records the requests: server-side apply of
# both configurations at start, again when the certificate rotates and when the
# policies name another kind, deletion at a graceful exit (none with
# --persistent-webhooks), and a failing API retried. Not a real API server.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

# The fake API server's certificate (for 127.0.0.1), and two serving certificates for gavel.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=kube -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$work/api.key" -out "$work/api.crt" 2>/dev/null
for n in 1 2; do
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=gavel$n" \
        -addext subjectAltName=DNS:gavel.gavel.svc -keyout "$work/tls$n.key" -out "$work/tls$n.crt" 2>/dev/null
done
cp "$work/tls1.crt" "$work/tls.crt"; cp "$work/tls1.key" "$work/tls.key"
echo "s3cret" > "$work/token"
python3 test/e2e/fixtures/kube/fake_apiserver.py "$work/api.crt" "$work/api.key" s3cret "$work/requests.jsonl" "$work/api.port" &
for _ in $(seq 1 50); do [[ -s $work/api.port ]] && break; sleep 0.1; done
[[ -s $work/api.port ]] || { echo "the fake API server did not start"; exit 1; }
mkdir -p "$work/policies"
cp examples/deploy/policies/image-registry.rego examples/deploy/policies/mutating.rego "$work/policies/"

export KUBERNETES_SERVICE_HOST=127.0.0.1 KUBERNETES_SERVICE_PORT=$(cat "$work/api.port")
export GAVEL_KUBE_TOKEN_FILE=$work/token GAVEL_KUBE_CA_FILE=$work/api.crt

# requests [JQ-LIKE REGO over the records]: the recorded requests as a JSON array, queried with gavel.
records() { python3 -c 'import json,sys; print(json.dumps([json.loads(l) for l in open(sys.argv[1])]))' "$work/requests.jsonl" > "$work/requests.json"; }
query() { records; json_get "$work/requests.json" "$1"; }
wait_for() {  # wait_for REGO: until the query over the records is true (5 s)
    for _ in $(seq 1 50); do [[ -s $work/requests.jsonl && $(query "$1") == true ]] && return 0; sleep 0.1; done
    return 1
}
b64() { base64 -w0 < "$1"; }

start_server mw --policies "$work/policies" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" \
    --manage-webhooks gavel --webhook-service gavel/gavel --reload-interval 200ms || exit 1
wait_for 'count(input) >= 2' && pass "two requests at start" || fail "no requests at start: $(cat "$mw_log")"
expect_eq "no request broke the API's rules" "$(query '[r | some r in input; r.violation]')" "[]"
expect_eq "server-side apply: PATCH, apply-patch+yaml, fieldManager=gavel, force=true" \
    "$(query '{[r.method, r.content_type, r.query.fieldManager[0], r.query.force[0]] | some r in input}')" \
    '[["PATCH","application/apply-patch+yaml","gavel","true"]]'
expect_eq "paths" "$(query '[r.path | some r in input]')" \
    '["/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gavel-validating","/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gavel-mutating"]'
expect_eq "created (201)" "$(query '[r.status | some r in input]')" '[201,201]'
expect_eq "caBundle is the serving certificate" "$(query "{h.clientConfig.caBundle | some r in input; some h in r.object.webhooks}")" "[\"$(b64 "$work/tls1.crt")\"]"
expect_eq "service clientConfig and paths" "$(query '[[h.clientConfig.service.name, h.clientConfig.service.path] | some r in input; some h in r.object.webhooks]')" \
    '[["gavel","/validate/kubernetes/admission"],["gavel","/mutate/kubernetes/mutating"]]'
expect_eq "kinds from the policies" "$(query '{x | some r in input; some h in r.object.webhooks; some rule in h.rules; some x in rule.resources}')" '["pods"]'
expect_eq "namespaces left out" "$(query '{v | some r in input; some h in r.object.webhooks; some e in h.namespaceSelector.matchExpressions; some v in e.values}')" \
    '["gavel","kube-node-lease","kube-system"]'
grep -q '"msg":"webhooks applied"' "$mw_log" && pass "logged: webhooks applied" || fail "no 'webhooks applied' log line"

# Nothing changed: nothing sent again.
sleep 1.5
expect_eq "no request while nothing changes" "$(query 'count(input)')" 2

# The certificate rotates: applied again with the new caBundle.
cp "$work/tls2.key" "$work/tls.key"; cp "$work/tls2.crt" "$work/tls.crt"
if wait_for "count(input) >= 4"; then
    expect_eq "re-applied after rotation with the new caBundle" \
        "$(query "{h.clientConfig.caBundle | some r in array.slice(input, 2, 4); some h in r.object.webhooks}")" "[\"$(b64 "$work/tls2.crt")\"]"
    expect_eq "updated (200)" "$(query '[r.status | some r in array.slice(input, 2, 4)]')" '[200,200]'
else fail "no re-apply after the certificate rotated: $(cat "$mw_log")"; fi

# A policy names another kind: the validating configuration is applied again (the mutating one is unchanged).
cat > "$work/policies/deployments.rego" <<'REGO'
package kubernetes.deployments

deny contains "no replicas" if {
	input.request.kind.kind == "Deployment"
	input.request.object.spec.replicas == 0
}
REGO
if wait_for "count(input) >= 5"; then
    expect_eq "the new kind's webhook is applied" \
        "$(query '[[h.name, h.rules[0].apiGroups[0], h.rules[0].resources[0]] | some h in input[4].object.webhooks; h.name == "kubernetes-deployments.validate.gavel.dev"]')" \
        '[["kubernetes-deployments.validate.gavel.dev","apps","deployments"]]'
else fail "no re-apply after the policies changed"; fi
sleep 0.5
expect_eq "one request for the change" "$(query 'count(input)')" 5

# A graceful exit deletes both.
stop_server "$mw_pid"
expect_eq "deleted at exit" "$(query '[[r.method, r.path, r.status] | some r in array.slice(input, 5, 7)]' | tr -d ' ')" \
    '[["DELETE","/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/gavel-mutating",200],["DELETE","/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/gavel-validating",200]]'

# --persistent-webhooks: kept at exit.
: > "$work/requests.jsonl"
start_server keep --policies "$work/policies" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" \
    --manage-webhooks gavel --persistent-webhooks --webhook-url https://10.0.0.7:8443 || exit 1
wait_for 'count(input) >= 2' || fail "no apply with --persistent-webhooks"
expect_eq "url clientConfig" "$(query '{h.clientConfig.url | some h in input[0].object.webhooks}')" \
    '["https://10.0.0.7:8443/validate/kubernetes/admission","https://10.0.0.7:8443/validate/kubernetes/deployments"]'
stop_server "$keep_pid"
expect_eq "--persistent-webhooks: nothing deleted" "$(query '[r | some r in input; r.method == "DELETE"]')" "[]"

# A wrong token: the API answers 401, gavel logs it, keeps serving and tries again.
: > "$work/requests.jsonl"
echo wrong > "$work/token"
start_server bad --policies "$work/policies" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --manage-webhooks gavel || exit 1
sleep 6.5
grep '"msg":"webhook registration failed; retrying"' "$bad_log" | grep -q 'HTTP 401' && pass "a 401 is logged" || fail "no failure log: $(cat "$bad_log")"
expect_eq "retried" "$(query 'count(input) >= 2')" true
expect_eq "still serving" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$bad_diag_port/health")" 200
echo s3cret > "$work/token"
wait_for '[r | some r in input; r.status in {200, 201}] != []' && pass "applied once the token is right" || fail "never applied after the token was fixed"
stop_server "$bad_pid"

# Outside a Pod: a clear error.
env -u KUBERNETES_SERVICE_HOST "$gavel" serve --policies "$work/policies" --addr 127.0.0.1:0 --manage-webhooks gavel > /dev/null 2> "$work/err"
expect_eq "outside a Pod: exit 1" "$?" 1
grep -q KUBERNETES_SERVICE_HOST "$work/err" && pass "names KUBERNETES_SERVICE_HOST" || fail "error: $(cat "$work/err")"

finish
