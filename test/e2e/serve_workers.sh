#!/usr/bin/env bash
# gavel serve evaluates on worker pools of its own: with every evaluation worker
# busy, /health and /metrics answer within 50 ms; a full queue answers at once
# (admission: the failure decision, deny or --fail-open's allow; REST: 503);
# time waiting for a worker counts against --eval-timeout.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

# slow_review N FILE: a review whose evaluation takes about (N/4500)^2 seconds.
slow_review() {
    "$gavel" eval --format raw -i "$fx/reviews/pod-good.json" \
        "json.marshal(json.patch(input, [{\"op\": \"add\", \"path\": \"/request/object/spec/n\", \"value\": $1}]))" > "$2"
}
slow_review 20000 "$work/slow.json"
ms_of() { awk '{printf "%d", $1 * 1000}'; }
# wait_metric BASE LINE: until /metrics has LINE
wait_metric() {
    for _ in $(seq 1 250); do curl -s "$1/metrics" | grep -q "^$2\$" && return 0; sleep 0.02; done
    return 1
}

# ---- every worker busy, one more waiting: probes still answer at once ----------------------------------------
start_server busy --policies "$fx/policies" --insecure-http --eval-workers 2 --eval-queue 1 --eval-timeout 15s || exit 1
adm="http://127.0.0.1:$busy_port"
diag="http://127.0.0.1:$busy_diag_port"
for i in 1 2 3; do
    curl -sS -o "$work/slow$i.out" --data-binary @"$work/slow.json" "$adm/validate/kubernetes/slow" &
done
wait_metric "$diag" "gavel_eval_workers_busy 2" && wait_metric "$diag" "gavel_eval_queued 1" \
    && pass "two workers busy, one request queued" || fail "the pool did not fill: $(curl -sS "$diag/metrics" | grep eval_)"
# Evaluations here take ~20 s: a probe queued behind them would take seconds. The bound is
# generous for a loaded 2-core machine (72 ms was seen under parallel builds).
worst=0
for _ in $(seq 1 20); do
    for path in health health/ready metrics; do
        t=$(curl -sS -o /dev/null -w '%{time_total}' "$diag/$path" | ms_of)
        (( t > worst )) && worst=$t
    done
done
(( worst < 1000 )) && pass "60 probes (/health, /health/ready, /metrics) while busy: slowest ${worst} ms" || fail "a probe took ${worst} ms"
t0=$(date +%s%N)
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$work/slow.json" "$adm/validate/kubernetes/slow")
elapsed=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_eq "queue full: HTTP 200 with a whole review" "$code $(json_get "$work/r.json" input.response.uid)" "200 0f1c8a3e-600d-4d2e-9b7c-000000000002"
expect_eq "queue full: denied with code 500" "$(json_get "$work/r.json" '[input.response.allowed, input.response.status.code]')" "[false,500]"
expect_eq "queue full: the message says so" "$(json_get "$work/r.json" 'startswith(input.response.status.message, "policy evaluation failed: server busy: all 2 workers are busy")')" true
(( elapsed < 1000 )) && pass "queue full: answered in ${elapsed} ms" || fail "queue full: took ${elapsed} ms"
curl -sS "$diag/metrics" > "$work/metrics.txt"
grep -q '^gavel_eval_rejected_total 1$' "$work/metrics.txt" && pass "rejection counted" || fail "rejection not counted"
grep -q 'gavel_http_requests_total{endpoint="/validate",decision="error",code="200"} 1' "$work/metrics.txt" && pass "counted as an error decision" || fail "not counted as an error decision"
grep -q '"msg":"queue full; answering at once"' "$busy_log" && pass "overload logged" || fail "overload not logged"
stop_server "$busy_pid"

# ---- --fail-open: the overload answer allows, with a warning ---------------------------------------------------------
start_server open --policies "$fx/policies" --insecure-http --fail-open --eval-workers 1 --eval-queue 0 --eval-timeout 15s || exit 1
adm="http://127.0.0.1:$open_port"
curl -sS -o /dev/null --data-binary @"$work/slow.json" "$adm/validate/kubernetes/slow" &
wait_metric "http://127.0.0.1:$open_diag_port" "gavel_eval_workers_busy 1" || fail "worker not busy"
curl -sS -o "$work/r.json" --data-binary @"$fx/reviews/pod-bad.json" "$adm/validate/kubernetes/validating"
expect_eq "fail-open, queue full: allowed" "$(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" true
expect_eq "fail-open, queue full: warning" \
    "$(json_get "$work/r.json" 'startswith(input.response.warnings[0], "gavel: policy evaluation failed, allowed by --fail-open: server busy")')" true
stop_server "$open_pid"

# ---- the REST API's own worker: 503 when its queue is full; admission unaffected ----------------------------------
start_server rest --policies "$fx/policies" --insecure-http --rest-queue 0 --eval-timeout 15s || exit 1
rest="http://127.0.0.1:$rest_rest_port"
printf '{"input": %s}' "$(cat "$work/slow.json")" > "$work/slow-input.json"
curl -sS -o /dev/null -X POST --data-binary @"$work/slow-input.json" "$rest/v1/data/kubernetes/slow/deny" &
wait_metric "http://127.0.0.1:$rest_diag_port" "gavel_rest_workers_busy 1" || fail "REST worker not busy"
code=$(curl -sS -D "$work/h.txt" -o "$work/r.json" -w '%{http_code}' -X PUT --data-binary '{}' "$rest/v1/data/x")
expect_eq "REST queue full: 503" "$code $(json_get "$work/r.json" input.code)" "503 unavailable"
grep -qi '^Retry-After: 1' "$work/h.txt" && pass "REST 503 says Retry-After" || fail "REST 503 without Retry-After"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$fx/reviews/pod-bad.json" "http://127.0.0.1:$rest_port/validate/kubernetes/validating")
expect_eq "admission meanwhile: decided as usual" "$code $(json_get "$work/r.json" input.response.status.code)" "200 403"
stop_server "$rest_pid"

# ---- waiting for a worker counts against --eval-timeout ---------------------------------------------------------------
# Evaluations stop at their deadline, so it is work without one (a large PUT) that a
# query can wait behind for longer than --eval-timeout: it is answered at once then.
python3 "$fx/gen/pods.py" 12000 > "$work/pods.json"   # about 38 MB: a few hundred ms of work each
start_server deadline --policies "$fx/policies" --insecure-http --eval-timeout 50ms || exit 1
rest="http://127.0.0.1:$deadline_rest_port"
writers=()
for i in 1 2 3; do
    curl -sS -o /dev/null -X PUT --data-binary @"$work/pods.json" "$rest/v1/data/kubernetes/pods$i" &
    writers+=($!)
done
wait_metric "http://127.0.0.1:$deadline_diag_port" "gavel_rest_workers_busy 1" || fail "REST worker not busy"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X POST --data-binary '{"query": "x := 1"}' "$rest/v1/query")
wait "${writers[@]}"
expect_eq "a query behind large PUTs: timed out waiting for a worker" \
    "$code $(json_get "$work/r.json" 'regex.match(`^evaluation timed out \(waited [0-9]+ ms for a worker\)$`, input.message)')" "500 true"
expect_eq "the next query evaluates" \
    "$(curl -sS -X POST --data-binary '{"query": "x := 1"}' "$rest/v1/query")" '{"result":[{"x":1}]}'
stop_server "$deadline_pid"

finish
