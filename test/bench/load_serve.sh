#!/usr/bin/env bash
# Load test of gavel serve (not part of the test suite): wrk over TLS with
# keep-alive on loopback, POSTing a real-size Pod AdmissionReview to the
# image-registry policy (examples/admission-v1). Prints requests/s, latency
# percentiles, errors, wrong decisions, the server's CPU time per request and its
# RSS before and after.
#
#   test/bench/load_serve.sh [GAVEL] [DURATION] [CONNECTIONS] [WRK_THREADS] [SERVER_THREADS]
# In the environment: SERVE_ARGS, more flags for gavel serve (e.g. "--eval-workers 1");
# CONTAINERS, the Pod's containers (3; 10 as in the issue's measurement); SERVER=run for
# OPA's server instead (`gavel run --server` over TLS, the same policy as system.main
# answering POST /, as an OPA deployment would; needs the openssl command for a certificate).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gavel=$(realpath "${1:-$root/build/cli/gavel}")
duration=${2:-30s}
connections=${3:-32}
wrk_threads=${4:-1}
server_threads=${5:-0}
containers=${CONTAINERS:-3}
[ "$containers" -ge 3 ] || { echo "CONTAINERS: at least 3"; exit 1; }
command -v wrk > /dev/null || { echo "wrk is not installed (scripts/install-deps.sh)"; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

# A Pod as a Deployment controller creates it: three containers with env,
# resources, probes, volume mounts; two of the images are not from hooli.com.
container() {
    cat <<JSON
{"name": "$1", "image": "$2", "imagePullPolicy": "IfNotPresent",
 "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
 "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
         {"name": "DB_PASSWORD", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}}],
 "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
 "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "initialDelaySeconds": 5, "periodSeconds": 10},
 "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5},
 "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}, {"name": "kube-api-access-x7k2p", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
 "securityContext": {"runAsNonRoot": true, "runAsUser": 1000, "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false},
 "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
JSON
}
cat > "$work/review.json" <<JSON
{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1",
 "request": {"uid": "3f1c2b8e-7d4a-4c1e-9b0a-5e6f7a8b9c0d",
  "kind": {"group": "", "version": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"},
  "requestKind": {"group": "", "version": "v1", "kind": "Pod"}, "requestResource": {"group": "", "version": "v1", "resource": "pods"},
  "namespace": "shop", "operation": "CREATE",
  "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller", "uid": "1b2c3d4e",
               "groups": ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"]},
  "object": {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"generateName": "checkout-7d9f8c6b5-", "namespace": "shop",
                "labels": {"app": "checkout", "pod-template-hash": "7d9f8c6b5", "team": "payments", "tier": "backend"},
                "annotations": {"prometheus.io/scrape": "true", "prometheus.io/port": "9090"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "checkout-7d9f8c6b5",
                                     "uid": "9a8b7c6d", "controller": true, "blockOwnerDeletion": true}]},
   "spec": {"containers": [$(container checkout hooli.com/shop/checkout:2.14.1), $(for i in $(seq 3 "$containers"); do container "envoy$i" docker.io/envoyproxy/envoy:v1.29.1; echo ,; done) $(container log-shipper fluent/fluent-bit:3.0)],
            "volumes": [{"name": "config", "configMap": {"name": "checkout"}},
                        {"name": "kube-api-access-x7k2p", "projected": {"sources": [{"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "checkout", "securityContext": {"fsGroup": 2000}, "schedulerName": "default-scheduler",
            "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}],
            "priority": 0, "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority"}},
  "oldObject": null, "dryRun": false,
  "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}}}
JSON
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$work/review.json", "rb")
wrk.body = f:read("*a")
f:close()
wrong = 0
response = function(status, headers, body)
  if status ~= 200 or not string.find(body, '"allowed":false', 1, true) then wrong = wrong + 1 end
end
-- Each wrk thread has its own Lua state: done() sums the threads' counters.
local threads = {}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local w = 0
  for _, t in ipairs(threads) do w = w + t:get("wrong") end
  io.write(string.format("wrong decisions: %d of %d\n", w, summary.requests))
  io.write(string.format("latency p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, p99.9 %.3f ms, max %.3f ms\n",
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    latency:percentile(99.9) / 1000, latency.max / 1000))
end
LUA

if [ "${SERVER:-serve}" = run ]; then
    # OPA's way: system.main builds the AdmissionReview answer for POST /.
    cat > "$work/main.rego" <<'REGO'
package system

import rego.v1

main := {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response}

response := {"uid": input.request.uid, "allowed": false, "status": {"message": concat(", ", deny)}} if count(deny) > 0

response := {"uid": input.request.uid, "allowed": true} if count(deny) == 0

deny contains msg if {
	input.request.kind.kind == "Pod"
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("image '%v' comes from untrusted registry", [container.image])
}
REGO
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/ca.pem" -days 1 -subj /CN=localhost \
        -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" 2> /dev/null
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # shellcheck disable=SC2086
    "$gavel" run --server --addr "127.0.0.1:$port" --tls-cert-file "$work/ca.pem" --tls-private-key-file "$work/key.pem" \
        ${SERVE_ARGS:-} "$work/main.rego" > /dev/null 2> "$work/server.log" &
    pid=$!
    for _ in $(seq 1 100); do curl -sf --cacert "$work/ca.pem" "https://localhost:$port/health" > /dev/null && break; sleep 0.1; done
    path=/
else
    # Before the listeners were split (no --rest-addr) gavel took no such flags: the script
    # measures either.
    listeners=()
    "$gavel" serve --help 2>&1 | grep -q -- --rest-addr && listeners=(--rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0)
    # shellcheck disable=SC2086
    "$gavel" serve --policies "$root/examples/admission-v1" --addr 127.0.0.1:0 "${listeners[@]}" --threads "$server_threads" ${SERVE_ARGS:-} \
        --ca-dump "$work/ca.pem" > /dev/null 2> "$work/server.log" &
    pid=$!
    admission_line() { grep '"msg":"listening"' "$work/server.log" | grep -v '"listener":"\(rest\|diagnostic\)"'; }
    for _ in $(seq 1 100); do admission_line > /dev/null && break; sleep 0.1; done
    port=$(admission_line | grep -o '"port":[0-9]*' | cut -d: -f2)
    path=/validate/kubernetes/admission
fi
url="https://127.0.0.1:$port$path"
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
echo "review: $(wc -c < "$work/review.json") bytes; decision: $(curl -sS --cacert "$work/ca.pem" --data-binary @"$work/review.json" "https://localhost:$port$path" | head -c 300)"
echo "RSS at start: $(rss)"
wrk -t1 -c4 -d2s -s "$work/post.lua" "$url" > /dev/null  # warm up (connections, allocator)
echo "RSS after warm-up: $(rss)"
ticks=$(cpu_ticks)
out=$(wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency -s "$work/post.lua" "$url")
ticks=$(($(cpu_ticks) - ticks))
echo "$out"
requests=$(echo "$out" | grep -o "[0-9]* requests in" | cut -d' ' -f1)
echo "server CPU per request: $((ticks * 1000000 / $(getconf CLK_TCK) / requests)) us (user + system, all threads)"
echo "RSS after load: $(rss)"
wrk -t"$wrk_threads" -c"$connections" -d"$duration" -s "$work/post.lua" "$url" | grep -E "Requests/sec|wrong|Non-2xx|Socket errors"
echo "RSS after a second run: $(rss)"
kill -TERM "$pid"
wait "$pid"
