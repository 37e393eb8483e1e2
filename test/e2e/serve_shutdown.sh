#!/usr/bin/env bash
# gavel serve shutdown and signals, as a rolling update drives them: on SIGTERM
# the request in flight is still answered, new connections are refused, idle
# keep-alive connections do not hold the exit back, and the process exits 0;
# --shutdown-wait-period serves on with readiness false first; a second signal
# skips the wait; past the grace period evaluations are cancelled and answered;
# SIGHUP reloads policies and data and the process carries on.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

# slow_review N FILE: a review whose evaluation takes about (N/4500)^2 seconds.
slow_review() {
    "$gavel" eval --format raw -i "$fx/reviews/pod-good.json" \
        "json.marshal(json.patch(input, [{\"op\": \"add\", \"path\": \"/request/object/spec/n\", \"value\": $1}]))" > "$2"
}
slow_review 4500 "$work/slow.json"      # about a second
slow_review 40000 "$work/slower.json"   # more than a minute
ms() { echo $(( $(date +%s%N) / 1000000 )); }

# ---- drain: SIGTERM without a wait period ---------------------------------------------------
start_server drain --policies "$fx/policies" --insecure-http --eval-timeout 30s --eval-workers 2 || exit 1
base="http://127.0.0.1:$drain_port"
diag="http://127.0.0.1:$drain_diag_port"
# An idle keep-alive connection (held open without sending).
exec 3<> "/dev/tcp/127.0.0.1/$drain_port"
curl -sS -o "$work/slow.out" -w '%{http_code}' --data-binary @"$work/slow.json" "$base/validate/kubernetes/slow" > "$work/slow.code" &
client=$!
for _ in $(seq 1 50); do
    curl -s "$diag/metrics" | grep -q '^gavel_eval_workers_busy 1' && break
    sleep 0.05
done
kill -TERM "$drain_pid"
sleep 0.2
if curl -sS -o /dev/null --max-time 2 --data-binary @"$fx/reviews/pod-good.json" "$base/validate/kubernetes/validating" 2> /dev/null; then
    fail "new connection accepted while draining"; else pass "new connections refused while draining"; fi
expect_eq "diagnostics still answer while draining (liveness)" "$(curl -sS -o /dev/null -w '%{http_code}' "$diag/health")" 200
expect_eq "not ready while draining" "$(curl -sS -o /dev/null -w '%{http_code}' "$diag/health/ready")" 503
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

# ---- --shutdown-wait-period: not ready, still serving, then draining -----------------------------
start_server wait --policies "$fx/policies" --insecure-http --shutdown-wait-period 2 || exit 1
base="http://127.0.0.1:$wait_port"
diag="http://127.0.0.1:$wait_diag_port"
expect_eq "wait: ready before the signal" "$(curl -sS -o /dev/null -w '%{http_code}' "$diag/health/ready")" 200
t0=$(ms)
kill -TERM "$wait_pid"
sleep 0.3
expect_eq "wait: not ready at once" "$(curl -sS -o /dev/null -w '%{http_code}' "$diag/health/ready")" 503
expect_eq "wait: still live" "$(curl -sS -o /dev/null -w '%{http_code}' "$diag/health")" 200
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$fx/reviews/pod-bad.json" "$base/validate/kubernetes/validating")
expect_eq "wait: new admission connections still answered" "$code $(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" "200 false"
kill -0 "$wait_pid" 2> /dev/null && pass "wait: process still serving after 0.3 s" || fail "wait: process gone before the wait period"
wait "$wait_pid"
status=$?
elapsed=$(( $(ms) - t0 ))
expect_eq "wait: exit status 0" "$status" 0
(( elapsed >= 2000 && elapsed < 5000 )) && pass "wait: exited after the 2 s wait (${elapsed} ms)" || fail "wait: exited after ${elapsed} ms"
grep -q '"wait_ms":2000' "$wait_log" && pass "wait: logged with its length" || fail "wait: not logged"

# ---- a second signal skips the rest of the wait ---------------------------------------------------
start_server twice --policies "$fx/policies" --insecure-http --shutdown-wait-period 30s || exit 1
t0=$(ms)
kill -TERM "$twice_pid"
sleep 0.3
kill -INT "$twice_pid"
wait "$twice_pid"
status=$?
elapsed=$(( $(ms) - t0 ))
expect_eq "second signal: exit status 0" "$status" 0
(( elapsed < 3000 )) && pass "second signal: the 30 s wait cut short (${elapsed} ms)" || fail "second signal: exited after ${elapsed} ms"

# ---- past the grace period: evaluations cancelled, answered, exit ----------------------------------
start_server grace --policies "$fx/policies" --insecure-http --eval-timeout 5m --shutdown-grace-period 1 || exit 1
curl -sS -o "$work/slower.out" -w '%{http_code}' --data-binary @"$work/slower.json" \
    "http://127.0.0.1:$grace_port/validate/kubernetes/slow" > "$work/slower.code" &
client=$!
sleep 0.5
t0=$(ms)
kill -TERM "$grace_pid"
wait "$grace_pid"
status=$?
elapsed=$(( $(ms) - t0 ))
wait "$client"
expect_eq "grace: exit status 0" "$status" 0
(( elapsed < 4000 )) && pass "grace: exited ${elapsed} ms after SIGTERM (1 s grace)" || fail "grace: exited after ${elapsed} ms"
expect_eq "grace: the cancelled evaluation answered as an error" \
    "$(cat "$work/slower.code") $(json_get "$work/slower.out" 'input.response.status.code')" "200 500"
grep -q 'cancelling evaluations' "$grace_log" && pass "grace: cancellation logged" || fail "grace: cancellation not logged"

# ---- SIGHUP reloads policies and data; the process carries on --------------------------------------
mkdir -p "$work/policies" "$work/data/config"
cp "$fx/policies/validating.rego" "$work/policies/"
echo '{"x": 1}' > "$work/data/config/data.json"
start_server hup --policies "$work/policies" --data "$work/data" --insecure-http --reload-interval 1h || exit 1
metric() { curl -sS "http://127.0.0.1:$hup_diag_port/metrics" | grep "^gavel_reloads_total{status=\"$1\"}" | cut -d' ' -f2; }
expect_eq "SIGHUP: one reload at start" "$(metric success)" 1
kill -HUP "$hup_pid"
got=""
for _ in $(seq 1 50); do got=$(metric success); [[ $got == 2 ]] && break; sleep 0.1; done
expect_eq "SIGHUP: reloaded (even with nothing changed)" "$got" 2
kill -0 "$hup_pid" 2> /dev/null && pass "SIGHUP: process alive" || fail "SIGHUP killed the process"
grep -q '"msg":"SIGHUP: reloading' "$hup_log" && pass "SIGHUP: logged" || fail "SIGHUP: not logged"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$fx/reviews/pod-bad.json" "http://127.0.0.1:$hup_port/validate/kubernetes/validating")
expect_eq "SIGHUP: still deciding" "$code $(json_get "$work/r.json" 'input.response.status.code')" "200 403"
printf 'package kubernetes.validating\n\ndeny contains "broken" if {\n' > "$work/policies/validating.rego"
kill -HUP "$hup_pid"
got=""
for _ in $(seq 1 50); do got=$(metric failure); [[ $got == 1 ]] && break; sleep 0.1; done
expect_eq "SIGHUP: a broken policy is a failed reload" "$got" 1
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$fx/reviews/pod-bad.json" "http://127.0.0.1:$hup_port/validate/kubernetes/validating")
expect_eq "SIGHUP: the last good policies keep deciding" "$code $(json_get "$work/r.json" 'input.response.status.code')" "200 403"
stop_server "$hup_pid"
expect_eq "SIGHUP: SIGTERM still stops it" "$?" 0

finish
