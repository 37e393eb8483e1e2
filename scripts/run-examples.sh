#!/usr/bin/env bash
# Installs what is missing, builds, and runs gavel on the bundled examples.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh build -- cli/gavel  # only what the examples run
set -x
# Each v0 example directory holds a bundle manifest (.manifest: {"rego_version": 0}), so
# no --v0-compatible is needed; data below a manifest is placed relative to its directory.
./build/cli/gavel check examples/
./build/cli/gavel eval -d examples/admission -i examples/admission/pod.json \
  --format values 'data.kubernetes.admission.deny'
./build/cli/gavel eval -d examples/admission-v1 -i examples/admission-v1/pod.json \
  --format values 'data.kubernetes.admission.deny'
./build/cli/gavel bench -d examples/admission -i examples/admission/pod.json \
  'data.kubernetes.admission.deny'
# Every example's unit tests, in one run.
./build/cli/gavel test examples/
# The admission webhook: HTTPS with a certificate made at start, a Pod review
# posted as the API server would, the denial it answers, then a graceful stop.
set +x
work=$(mktemp -d)
./build/cli/gavel serve --policies examples/admission-v1 --addr 127.0.0.1:0 \
  --rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 --ca-dump "$work/ca.pem" 2> "$work/serve.log" &
serve_pid=$!
trap 'kill "$serve_pid" 2> /dev/null || true; rm -rf "$work"' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(grep '"listener":"admission"' "$work/serve.log" | grep -o '"port":[0-9]*' | head -1 | cut -d: -f2 || true)
  [[ -n $port && -s $work/ca.pem ]] && break
  sleep 0.1
done
[[ -n $port ]] || { cat "$work/serve.log"; exit 1; }
set -x
curl -sS --cacert "$work/ca.pem" --data-binary @examples/admission-v1/pod.json \
  "https://localhost:$port/validate/kubernetes/admission"
echo
kill -TERM "$serve_pid"
wait "$serve_pid"
# Data filtering: the Compile API turns a policy into an SQL WHERE clause per user;
# SQLite's rows must be the rows a per-row `gavel eval` includes.
examples/data-filtering/check.sh ./build/cli/gavel
