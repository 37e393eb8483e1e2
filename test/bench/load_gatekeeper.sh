#!/usr/bin/env bash
# Load test of gavel serve --gatekeeper (not part of the test suite): 40
# constraints of gatekeeper-library's templates and a Pod review of 10
# containers (test/bench/gatekeeper_load_set.py), POSTed by wrk over TLS with
# keep-alive on loopback as load_serve.sh does; then, in the same run and with
# the same review, a plain policy (examples/admission-v1, image registry) as
# the baseline. Prints each one's requests/s, latency percentiles and wrong
# decisions, and a summary line of both.
#
#   test/bench/load_gatekeeper.sh LIBRARY [GAVEL] [DURATION] [CONNECTIONS] [WRK_THREADS]
# (LIBRARY: a gatekeeper-library checkout; its library/ is read. SERVE_ARGS in
# the environment: more flags for both servers.)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
library=$(realpath "$1")
[[ -d $library/library ]] || { echo "$1: not a gatekeeper-library checkout (no library/ in it)"; exit 1; }
gavel=$(realpath "${2:-$root/build/cli/gavel}")
duration=${3:-30s}
connections=${4:-32}
wrk_threads=${5:-1}
command -v wrk > /dev/null || { echo "wrk is not installed (scripts/install-deps.sh)"; exit 1; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

python3 "$root/test/bench/gatekeeper_load_set.py" "$library" "$work"

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

# load NAME PATH SERVE-FLAGS...: serves, warms up, loads; the wrk output goes to $work/NAME.out.
load() {
    local name=$1 path=$2
    shift 2
    # shellcheck disable=SC2086
    "$gavel" serve "$@" --addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 \
        ${SERVE_ARGS:-} --ca-dump "$work/ca.pem" > /dev/null 2> "$work/server.log" &
    local pid=$!
    # The listeners log their ports one after the other: wait for both.
    for _ in $(seq 1 300); do
        grep -q '"listener":"admission"' "$work/server.log" && grep -q '"listener":"diagnostic"' "$work/server.log" && break
        sleep 0.1
    done
    local port diag
    port=$(grep '"listener":"admission"' "$work/server.log" | grep -o '"port":[0-9]*' | cut -d: -f2 || true)
    diag=$(grep '"listener":"diagnostic"' "$work/server.log" | grep -o '"port":[0-9]*' | cut -d: -f2 || true)
    [[ -n $port && -n $diag ]] || { echo "$name: the server did not start:"; cat "$work/server.log"; exit 1; }
    if [[ $name == gatekeeper ]]; then
        local metrics
        metrics=$(curl -sS "http://127.0.0.1:$diag/metrics")
        echo "constraints: $(grep '^gavel_gatekeeper_constraints ' <<< "$metrics" | cut -d' ' -f2)," \
             "templates: $(grep '^gavel_gatekeeper_templates ' <<< "$metrics" | cut -d' ' -f2)"
    fi
    local decision
    decision=$(curl -sS --cacert "$work/ca.pem" --data-binary @"$work/review.json" "https://localhost:$port$path")
    echo "$name: review $(wc -c < "$work/review.json") bytes; decision: ${decision:0:300}"
    wrk -t1 -c4 -d2s -s "$work/post.lua" "https://127.0.0.1:$port$path" > /dev/null  # warm up
    wrk -t"$wrk_threads" -c"$connections" -d"$duration" --latency -s "$work/post.lua" "https://127.0.0.1:$port$path" \
        | tee "$work/$name.out"
    kill -TERM "$pid"
    wait "$pid" || true
}

# "NAME: R req/s, p50 A ms, p99 B ms, W wrong" from a wrk output.
summary() {
    local out=$work/$1.out
    printf '%s: %s req/s, p50 %s ms, p99 %s ms, %s wrong\n' "$1" \
        "$(awk '/^Requests\/sec:/ {print $2}' "$out")" \
        "$(grep -o 'latency p50 [0-9.]*' "$out" | awk '{print $3}')" \
        "$(grep -o 'p99 [0-9.]* ms' "$out" | head -1 | awk '{print $2}')" \
        "$(awk '/^wrong decisions:/ {print $3}' "$out")"
}

load gatekeeper /gatekeeper --gatekeeper "$work/policies"
load plain /validate/kubernetes/admission --policies "$root/examples/admission-v1"
echo "---"
summary gatekeeper
summary plain
