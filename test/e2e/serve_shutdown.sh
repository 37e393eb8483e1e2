#!/usr/bin/env bash
# gavel serve graceful shutdown: on SIGTERM the request in flight is still
# answered, new connections are refused, idle keep-alive connections do not
# hold the exit back, and the process exits 0.
set -uo pipefail
gavel=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fx=test/e2e/fixtures/serve
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
source "$fx/lib.sh"

start_server drain --policies "$fx/policies" --insecure-http --eval-timeout 30s --threads 2 || exit 1
base="http://127.0.0.1:$drain_port"
# A request that evaluates for about a second.
"$gavel" eval --format raw -i "$fx/reviews/pod-good.json" 'json.marshal(json.patch(input, [{"op": "add", "path": "/request/object/spec/n", "value": 4500}]))' > "$work/slow.json"
# An idle keep-alive connection (nc holds it open without sending).
exec 3<> "/dev/tcp/127.0.0.1/$drain_port"
curl -sS -o "$work/slow.out" -w '%{http_code}' --data-binary @"$work/slow.json" "$base/validate/kubernetes/slow" > "$work/slow.code" &
client=$!
for _ in $(seq 1 50); do
    curl -sS "$base/metrics" | grep -q '^gavel_http_requests_in_flight 2' && break
    sleep 0.05
done
kill -TERM "$drain_pid"
sleep 0.2
if curl -sS -o /dev/null --max-time 2 "$base/health" 2> /dev/null; then fail "new connection accepted while draining"; else pass "new connections refused while draining"; fi
wait "$client"
expect_eq "request in flight answered" "$(cat "$work/slow.code")" 200
expect_eq "request in flight: a whole review" "$(json_get "$work/slow.out" 'json.marshal(input.response.allowed)')" true
start=$(date +%s)
wait "$drain_pid"
status=$?
expect_eq "exit status 0" "$status" 0
(( $(date +%s) - start <= 3 )) && pass "idle connection did not hold the exit" || fail "exit waited for the idle connection"
grep -q '"msg":"shutting down' "$drain_log" && pass "shutdown logged" || fail "shutdown not logged"
exec 3>&-

if ((failures)); then echo "$failures failure(s)"; exit 1; fi
echo "all serve shutdown tests passed"
