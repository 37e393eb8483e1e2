#!/usr/bin/env bash
# gavel run --server started with the container arguments OPA's own deployments use,
# unchanged: OPA's Kubernetes tutorial (TLS admission on one --addr, kube-mgmt's plain
# --addr on loopback, bundles from a bundle service, console decision logs and status)
# and the opa-kube-mgmt Helm chart (token authentication, system.authz from a bootstrap
# ConfigMap volume, --ignore=.*, a diagnostic listener). Then what their clients do:
# kubelet probes, kube-mgmt's replication, the API server's AdmissionReview to POST /.
source "$(dirname "$0")/lib.sh"
wait_http() {  # URL [CURL-ARGS...]: until it answers at all
    local url=$1; shift
    for _ in $(seq 1 100); do curl -s -o /dev/null "$@" "$url" && return 0; sleep 0.1; done
    return 1
}

ossl() { openssl "$@" > /dev/null 2>&1 || { echo "openssl $* failed"; exit 1; }; }
newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
ossl req -x509 "${newkey[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj "/CN=opa-args CA"
ossl req "${newkey[@]}" -keyout "$work/tls.key" -out "$work/tls.csr" -subj "/CN=opa.opa.svc"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$work/ext"
ossl x509 -req -in "$work/tls.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -out "$work/tls.crt" -days 2 \
    -extfile "$work/ext"

# ---- OPA's Kubernetes tutorial ------------------------------------------------------------------------------
mkdir -p "$work/bundle/src/kubernetes/admission" "$work/bundle/src/system"
cat > "$work/bundle/src/kubernetes/admission/ingress.rego" <<'EOF'
package kubernetes.admission

deny contains msg if {
	input.request.kind.kind == "Ingress"
	some other in data.kubernetes.ingresses[_]
	other.spec.rules[_].host == input.request.object.spec.rules[_].host
	msg := sprintf("ingress host conflicts with %v", [other.metadata.name])
}
EOF
cat > "$work/bundle/src/system/main.rego" <<'EOF'
package system

main := {
	"apiVersion": "admission.k8s.io/v1",
	"kind": "AdmissionReview",
	"response": response,
}

default uid := ""

uid := input.request.uid

response := {"allowed": false, "uid": uid, "status": {"message": concat(", ", data.kubernetes.admission.deny)}} if {
	count(data.kubernetes.admission.deny) > 0
} else := {"allowed": true, "uid": uid}
EOF
printf '{"roots": ["kubernetes/admission", "system"]}\n' > "$work/bundle/src/.manifest"
"$gavel" build -b "$work/bundle/src" -o "$work/bundle/bundle.tar.gz" > /dev/null || { echo "gavel build failed"; exit 1; }
bundle_port=$(free_port)
(cd "$work/bundle" && exec python3 -m http.server "$bundle_port" --bind 127.0.0.1 > /dev/null 2>&1) &
tls_port=$(free_port)
api_port=$(free_port)
# The tutorial's container arguments, word for word but for the ports and file paths.
"$gavel" run \
    --server \
    --tls-cert-file="$work/tls.crt" \
    --tls-private-key-file="$work/tls.key" \
    --addr=0.0.0.0:"$tls_port" \
    --addr=http://127.0.0.1:"$api_port" \
    --set=services.default.url=http://127.0.0.1:"$bundle_port" \
    --set=bundles.default.resource=bundle.tar.gz \
    --log-format=json-pretty \
    --set=status.console=true \
    --set=decision_logs.console=true \
    --disable-telemetry \
    > "$work/tutorial.out" 2> "$work/tutorial.err" &
tutorial_pid=$!
https=(--cacert "$work/ca.pem")
if wait_http "https://localhost:$tls_port/health" "${https[@]}"; then pass "tutorial: started"; else
    fail "tutorial: did not start: $(tail -5 "$work/tutorial.err")"; fi
# The tutorial's readiness probe: /health?plugins&bundle over HTTPS, once the bundle is active.
ready=""
for _ in $(seq 1 100); do
    ready=$(curl -s -o /dev/null -w '%{http_code}' "${https[@]}" "https://localhost:$tls_port/health?plugins&bundle")
    [[ $ready == 200 ]] && break
    sleep 0.1
done
expect_eq "tutorial: ready once the bundle is active (HTTPS probe)" "$ready" 200
expect_eq "tutorial: liveness on kube-mgmt's plain listener" "$(curl -s "http://127.0.0.1:$api_port/health")" '{}'
# kube-mgmt replicates Ingresses into data.kubernetes.ingresses on the loopback listener.
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
    --data-binary '{"prod": {"shop": {"metadata": {"name": "shop"}, "spec": {"rules": [{"host": "shop.example.com"}]}}}}' \
    "http://127.0.0.1:$api_port/v1/data/kubernetes/ingresses")
expect_eq "tutorial: kube-mgmt replication PUT" "$code" 204
# A write into the bundle's roots is refused as OPA refuses it.
curl -s -o "$work/r.json" -X PUT --data-binary '{}' "http://127.0.0.1:$api_port/v1/data/system/x"
expect_eq "tutorial: bundle roots are the bundle's" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["message"])' "$work/r.json")" \
    'path system/x is owned by bundle "default"'
review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1","kind":{"group":"networking.k8s.io","version":"v1","kind":"Ingress"},"object":{"metadata":{"name":"web"},"spec":{"rules":[{"host":"shop.example.com"}]}}}}'
# The API server posts the AdmissionReview to / over TLS: data.system.main answers.
curl -s "${https[@]}" -o "$work/r.json" --data-binary "$review" "https://localhost:$tls_port/"
expect_eq "tutorial: POST / denies the conflicting Ingress" \
    "$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["response"]; print(r["allowed"], r["uid"], r["status"]["message"])' "$work/r.json")" \
    "False u-1 ingress host conflicts with shop"
grep -q '"decision_id"' "$work/tutorial.out" && pass "tutorial: console decision logs" || fail "tutorial: no console decision log"
grep -q 'openpolicyagent.org/status' "$work/tutorial.err" "$work/tutorial.out" && pass "tutorial: console status" ||
    fail "tutorial: no console status"
kill -TERM "$tutorial_pid"
wait "$tutorial_pid"
expect_eq "tutorial: SIGTERM stops it cleanly" "$?" 0

# ---- the opa-kube-mgmt Helm chart ---------------------------------------------------------------------------
# Its bootstrap volume is a ConfigMap: the files are links into "..data"; --ignore=.* keeps
# the volume's own entries and hidden files out.
mkdir -p "$work/bootstrap/..2026_11_27_10_00_00.000000001"
cat > "$work/bootstrap/..2026_11_27_10_00_00.000000001/authz.rego" <<'EOF'
package system.authz

default allow := false

# Allow anonymous access to the default policy decision.
allow if {
	input.path = [""]
	input.method == "POST"
}

# This is only used for health check in liveness and readiness probe
allow if {
	input.path = ["health"]
	input.method == "GET"
}

allow if input.identity == "0123456789ABCDEF0123456789ABCDEF"
EOF
ln -s "..2026_11_27_10_00_00.000000001" "$work/bootstrap/..data"
ln -s "..data/authz.rego" "$work/bootstrap/authz.rego"
chart_port=$(free_port)
diag_port=$(free_port)
"$gavel" run --server --tls-cert-file="$work/tls.crt" --tls-private-key-file="$work/tls.key" \
    --addr=0.0.0.0:"$chart_port" --log-level=info --log-format=json --authentication=token --authorization=basic \
    --ignore=.* --diagnostic-addr=http://127.0.0.1:"$diag_port" "$work/bootstrap" \
    > "$work/chart.out" 2> "$work/chart.err" &
chart_pid=$!
base="https://localhost:$chart_port"
if wait_http "$base/health" "${https[@]}"; then pass "chart: started"; else fail "chart: did not start: $(tail -5 "$work/chart.err")"; fi
expect_eq "chart: liveness probe (GET /health, anonymous)" "$(curl -s -o /dev/null -w '%{http_code}' "${https[@]}" "$base/health")" 200
expect_eq "chart: anonymous reads refused" "$(curl -s -o /dev/null -w '%{http_code}' "${https[@]}" "$base/v1/data")" 401
token=(-H 'Authorization: Bearer 0123456789ABCDEF0123456789ABCDEF')
code=$(curl -s -o /dev/null -w '%{http_code}' "${https[@]}" "${token[@]}" -X PUT --data-binary $'package kubernetes.admission\n\ndeny contains "no" if input.request.kind.kind == "Pod"\n' \
    "$base/v1/policies/opa/policies/pods.rego")
expect_eq "chart: kube-mgmt loads a policy ConfigMap with its token" "$code" 200
expect_eq "chart: the volume's ..data is ignored (one policy from it)" \
    "$(curl -s "${https[@]}" "${token[@]}" "$base/v1/policies" | python3 -c 'import json,sys; print(sorted(p["id"].rsplit("/", 1)[-1] for p in json.load(sys.stdin)["result"]))')" \
    "['authz.rego', 'pods.rego']"
expect_eq "chart: the diagnostic listener serves health" "$(curl -s "http://127.0.0.1:$diag_port/health")" '{}'
# OPA authorizes the diagnostic listener's requests too, before routing them.
expect_eq "chart: the diagnostic listener has no data API" \
    "$(curl -s -o /dev/null -w '%{http_code}' "${token[@]}" "http://127.0.0.1:$diag_port/v1/data")" 404
kill -TERM "$chart_pid"
wait "$chart_pid"

# ---- a unix:// listener, as Envoy sidecars reach OPA --------------------------------------------------------
printf 'package sidecar\n\nallow if input.user == "alice"\n' > "$work/sidecar.rego"
"$gavel" run --server --addr=unix://"$work/opa.sock" --unix-socket-perm=700 "$work/sidecar.rego" 2> "$work/unix.err" &
unix_pid=$!
for _ in $(seq 1 100); do [[ -S $work/opa.sock ]] && break; sleep 0.1; done
expect_eq "unix: the socket file and its permissions" "$(stat -c %A "$work/opa.sock" 2> /dev/null)" "srwx------"
expect_eq "unix: a decision over the socket" \
    "$(curl -s --unix-socket "$work/opa.sock" -X POST --data-binary '{"input": {"user": "alice"}}' http://opa/v1/data/sidecar/allow)" \
    '{"result":true}'
kill -TERM "$unix_pid"
wait "$unix_pid"

if ((failures)); then
    echo "$failures failure(s)"
    exit 1
fi
echo "all run --server tests with OPA's arguments passed"
