#!/usr/bin/env bash
# Request bodies cannot lock others out: a declared Content-Length reserves
# nothing (100 connections announcing 3 MiB, the limit, and sending nothing leave
# admission answering AdmissionReviews at once; a stalled 256 MiB PUT leaves other
# REST writes alone); bytes actually received share the budget (503 + Retry-After
# beyond it); a whole body must arrive within --body-timeout, however it
# trickles (408; on the admission listener an AdmissionReview-shaped answer).
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
clients() { python3 "$fx/clients.py" "$@"; }
within() { awk -v t="$1" -v max="$2" 'BEGIN { exit !(t < max) }'; }
wait_line() { for _ in $(seq 1 300); do grep -q "^$2" "$1" && return 0; sleep 0.1; done; return 1; }

# ---- 100 stalled bodies: admission still decides, within 2 s -----------------------------------------------
start_server stalled --policies "$fx/policies" --insecure-http --body-timeout 30s || exit 1
adm="http://127.0.0.1:$stalled_port"
rest="http://127.0.0.1:$stalled_rest_port"
rm -f "$work/release"
clients stall "$stalled_port" 100 $((3 << 20)) 0 /validate/kubernetes/validating "$work/release" > "$work/stall.out" &
stall=$!
wait_line "$work/stall.out" stalled && pass "100 connections declare 3 MiB bodies and send nothing" || fail "stall: $(cat "$work/stall.out")"
sleep 0.5
slowest=0 answers=""
for _ in $(seq 1 5); do
    read -r code secs < <(curl -sS -o "$work/r.json" -w '%{http_code} %{time_total}\n' --max-time 10 \
        --data-binary @"$fx/reviews/pod-good.json" "$adm/validate/kubernetes/validating")
    answers+="$code $(json_get "$work/r.json" 'input.kind') "
    within "$secs" "$slowest" || slowest=$secs
done
expect_eq "5 admission requests meanwhile: AdmissionReviews" "$answers" "$(printf '200 AdmissionReview %.0s' 1 2 3 4 5)"
within "$slowest" 2 && pass "  ... the slowest in ${slowest} s" || fail "an admission answer took ${slowest} s"
# REST: one stalled PUT of the largest size holds nothing; other writes, large ones included, go through.
clients stall "$stalled_rest_port" 1 $((256 << 20)) 0 /v1/data/big "$work/release" > "$work/stall-rest.out" &
stall_rest=$!
wait_line "$work/stall-rest.out" stalled
python3 "$fx/gen/pods.py" 1500 > "$work/pods.json"  # 4.7 MB
expect_eq "a stalled 256 MiB PUT: a small PUT meanwhile -> 204" \
    "$(curl -sS -o /dev/null -w '%{http_code}' -X PUT --data-binary '{"a": 1}' "$rest/v1/data/small")" 204
expect_eq "  ... and a 4.7 MB PUT -> 204" \
    "$(curl -sS -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$work/pods.json" "$rest/v1/data/pods")" 204
touch "$work/release"
wait "$stall" "$stall_rest"
stop_server "$stalled_pid"

# ---- the budget counts bytes received ---------------------------------------------------------------------------
start_server budget --policies "$fx/policies" --insecure-http --rest-max-body 6000000 || exit 1
rest="http://127.0.0.1:$budget_rest_port"
rm -f "$work/release"
# 4.5 MB of a 5 MB body arrive, then the sender pauses: it holds most of the 6 MB budget.
clients stall "$budget_rest_port" 1 5000000 4500000 /v1/data/first "$work/release" finish > "$work/stall.out" &
stall=$!
wait_line "$work/stall.out" stalled
sleep 0.5
code=$(curl -sS -D "$work/h.txt" -o "$work/r.json" -w '%{http_code}' -X PUT --data-binary @"$work/pods.json" "$rest/v1/data/second")
expect_eq "a second large upload meanwhile: 503, it says why" "$code $(json_get "$work/r.json" input.message)" \
    "503 too many large request bodies at once; retry"
grep -qi '^Retry-After: 1' "$work/h.txt" && pass "  ... with Retry-After" || fail "no Retry-After"
expect_eq "a small request meanwhile: 204" "$(curl -sS -o /dev/null -w '%{http_code}' -X PUT --data-binary '{"a": 1}' "$rest/v1/data/small")" 204
touch "$work/release"
wait "$stall"
expect_eq "the paused upload completes: 204" "$(tail -1 "$work/stall.out")" 204
expect_eq "after it, the second upload goes through: 204" \
    "$(curl -sS -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$work/pods.json" "$rest/v1/data/second")" 204
stop_server "$budget_pid"

# ---- a deadline for the whole body --------------------------------------------------------------------------------
start_server slow --policies "$fx/policies" --insecure-http --body-timeout 2s || exit 1
# One byte every 0.3 s: each read makes progress, the body never completes.
read -r secs code body < <(clients trickle "$slow_rest_port" /v1/data/x 100 0.3)
expect_eq "REST: a trickling body -> 408 with OPA's error shape" "$code $body" \
    '408 {"code":"invalid_parameter","message":"request body not received within 2s"}'
within "$secs" 6 && ! within "$secs" 1.5 && pass "  ... after ${secs} s (the deadline is 2 s)" || fail "answered after ${secs} s"
read -r secs code body < <(clients trickle "$slow_port" /validate/kubernetes/validating 100 0.3)
echo "$body" > "$work/r.json"
expect_eq "admission: 408 with an AdmissionReview" \
    "$code $(json_get "$work/r.json" '[input.kind, input.response.allowed, input.response.status.message]')" \
    '408 ["AdmissionReview",false,"policy evaluation failed: request body not received within 2s"]'
expect_eq "still deciding" "$(curl -sS -o /dev/null -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" \
    "http://127.0.0.1:$slow_port/validate/kubernetes/validating")" 200
stop_server "$slow_pid"

finish
