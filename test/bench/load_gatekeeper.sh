#!/usr/bin/env bash
# Load test of gavel serve --gatekeeper (not part of the test suite): 40
# constraints of gatekeeper-library's templates (the first 40 of its suites'
# tests, each with its template) and a Pod review of 10 containers, POSTed by
# wrk over TLS with keep-alive on loopback as load_serve.sh does. Prints the
# constraints' templates, requests/s, latency percentiles and errors.
#
#   test/bench/load_gatekeeper.sh LIBRARY [GAVEL] [DURATION] [CONNECTIONS] [WRK_THREADS]
# (LIBRARY: a gatekeeper-library checkout; its library/ is read.)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
library=$(realpath "$1")
gavel=$(realpath "${2:-$root/build/cli/gavel}")
duration=${3:-30s}
connections=${4:-32}
wrk_threads=${5:-1}
command -v wrk > /dev/null || { echo "wrk is not installed (scripts/install-deps.sh)"; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir "$work/policies"

# The first 40 (template, constraint) pairs of the library's suites, one file each.
python3 - "$library/library" "$work/policies" <<'PY'
import os, sys, yaml
lib, out = sys.argv[1], sys.argv[2]
pairs, seen = [], set()
for root, _, files in sorted(os.walk(lib)):
    if "suite.yaml" not in files:
        continue
    suite = yaml.safe_load(open(os.path.join(root, "suite.yaml")))
    for t in suite.get("tests", []):
        c = os.path.join(root, t["constraint"])
        doc = yaml.safe_load(open(c).read().split("\n---")[0])
        key = (doc["kind"], doc["metadata"]["name"])
        if key in seen:
            continue
        seen.add(key)
        pairs.append((os.path.join(root, t["template"]), c))
for i, (t, c) in enumerate(pairs[:40]):
    open(os.path.join(out, "t%02d.yaml" % i), "w").write(open(t).read())
    open(os.path.join(out, "c%02d.yaml" % i), "w").write(open(c).read())
PY

container() {
    cat <<JSON
{"name": "$1", "image": "$2", "imagePullPolicy": "IfNotPresent",
 "ports": [{"containerPort": 8080, "protocol": "TCP", "name": "http"}],
 "env": [{"name": "LOG_LEVEL", "value": "info"}, {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
 "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
 "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "initialDelaySeconds": 5, "periodSeconds": 10},
 "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}, "periodSeconds": 5},
 "volumeMounts": [{"name": "config", "mountPath": "/etc/app"}],
 "securityContext": {"runAsNonRoot": true, "runAsUser": 1000, "readOnlyRootFilesystem": true, "allowPrivilegeEscalation": false}}
JSON
}
containers=""
for i in $(seq 1 10); do
    image=hooli.com/shop/app$i:1.$i
    (( i % 3 == 0 )) && image=docker.io/library/nginx:latest
    containers+="${containers:+,}$(container app$i "$image")"
done
cat > "$work/review.json" <<JSON
{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1",
 "request": {"uid": "3f1c2b8e-7d4a-4c1e-9b0a-5e6f7a8b9c0d",
  "kind": {"group": "", "version": "v1", "kind": "Pod"}, "resource": {"group": "", "version": "v1", "resource": "pods"},
  "namespace": "shop", "operation": "CREATE",
  "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller", "groups": ["system:authenticated"]},
  "object": {"apiVersion": "v1", "kind": "Pod",
   "metadata": {"name": "checkout-7d9f8c6b5-x2x9z", "namespace": "shop",
                "labels": {"app": "checkout", "team": "payments", "tier": "backend"},
                "annotations": {"prometheus.io/scrape": "true"}},
   "spec": {"containers": [$containers],
            "volumes": [{"name": "config", "configMap": {"name": "checkout"}}],
            "restartPolicy": "Always", "serviceAccountName": "checkout", "securityContext": {"fsGroup": 2000}}}}}
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

"$gavel" serve --gatekeeper "$work/policies" --addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 \
    ${SERVE_ARGS:-} --ca-dump "$work/ca.pem" > /dev/null 2> "$work/server.log" &
pid=$!
for _ in $(seq 1 100); do grep -q '"listener":"admission"' "$work/server.log" && break; sleep 0.1; done
port=$(grep '"listener":"admission"' "$work/server.log" | grep -o '"port":[0-9]*' | cut -d: -f2)
[[ -n $port ]] || { cat "$work/server.log"; exit 1; }
diag=$(grep '"listener":"diagnostic"' "$work/server.log" | grep -o '"port":[0-9]*' | cut -d: -f2)
url="https://127.0.0.1:$port/gatekeeper"
echo "constraints: $(curl -sS "http://127.0.0.1:$diag/metrics" | grep '^gavel_gatekeeper_constraints ' | cut -d' ' -f2)," \
     "templates: $(curl -sS "http://127.0.0.1:$diag/metrics" | grep '^gavel_gatekeeper_templates ' | cut -d' ' -f2)"
echo "review: $(wc -c < "$work/review.json") bytes; decision: $(curl -sS --cacert "$work/ca.pem" --data-binary @"$work/review.json" "https://localhost:$port/gatekeeper" | head -c 400)"
wrk -t1 -c4 -d2s -s "$work/post.lua" "$url" > /dev/null  # warm up
wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency -s "$work/post.lua" "$url"
kill -TERM "$pid"
wait "$pid" || true
