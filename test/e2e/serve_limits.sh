#!/usr/bin/env bash
# gavel serve's REST limits and paths: kube-mgmt's first sync of 1,500 Pods (one
# 4.7 MB PUT) is accepted while admission keeps its 3 MiB limit; memory returns
# to the baseline after a large request; deep paths (the 30,000-segment PUT and
# the PATCH below it that crashed the server) are refused in every path-taking
# API, and the server keeps serving.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

python3 "$fx/gen/pods.py" 1500 > "$work/pods.json"
python3 "$fx/gen/pods.py" 12000 > "$work/pods-large.json"   # about 38 MB
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status"; }

start_server big --policies "$fx/policies" --insecure-http || exit 1
rest="http://127.0.0.1:$big_rest_port"
adm="http://127.0.0.1:$big_port"
put() { curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT --data-binary @"$2" "$rest/v1/data/$1"; }

# ---- item 4: a large cluster's sync fits the data API's own limit --------------------------------------
expect_eq "a 4.7 MB PUT /v1/data (1,500 Pods) -> 204" "$(put kubernetes/pods "$work/pods.json")" 204
curl -sS -X POST "$rest/v1/query" --data-binary '{"query": "n := count([p | some ns, name; p := data.kubernetes.pods[ns][name]])"}' > "$work/r.json"
expect_eq "all 1,500 Pods are in data" "$(cat "$work/r.json")" '{"result":[{"n":1500}]}'
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$work/pods.json" "$adm/validate/kubernetes/validating")
expect_eq "admission keeps its 3 MiB limit: 413" "$code" 413
expect_eq "admission still decides" \
    "$(curl -sS -o /dev/null -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" "$adm/validate/kubernetes/validating")" 200

# ---- memory returns to the baseline after a large request ------------------------------------------------
expect_eq "replace the sync with {}" "$(put kubernetes/pods <(echo '{}'))" 204
sleep 1.5
base_kb=$(rss_kb "$big_pid")
expect_eq "a 38 MB PUT -> 204" "$(put kubernetes/pods "$work/pods-large.json")" 204
high_kb=$(rss_kb "$big_pid")
expect_eq "replace it with {}" "$(put kubernetes/pods <(echo '{}'))" 204
after_kb=""
for _ in $(seq 1 30); do
    after_kb=$(rss_kb "$big_pid")
    (( after_kb <= base_kb + 12 * 1024 )) && break
    sleep 0.2
done
echo "     RSS: baseline ${base_kb} kB, with 38 MB of Pods ${high_kb} kB, after replacing them ${after_kb} kB"
(( after_kb <= base_kb + 12 * 1024 )) && pass "RSS back within 12 MB of the baseline" || fail "RSS stayed at ${after_kb} kB (baseline ${base_kb} kB)"
stop_server "$big_pid"

# ---- --rest-max-body -------------------------------------------------------------------------------------------
start_server small --policies "$fx/policies" --insecure-http --rest-max-body 6000000 || exit 1
rest="http://127.0.0.1:$small_rest_port"
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PUT --data-binary @"$work/pods-large.json" "$rest/v1/data/kubernetes/pods")
expect_eq "beyond --rest-max-body: 413" "$code $(json_get "$work/r.json" input.message)" "413 request body too large"
# The budget of large bodies shared by uploads at once: serve_bodies.sh.
stop_server "$small_pid"

# ---- item 5: deep paths, in every path-taking API -----------------------------------------------------------
start_server deep --policies "$fx/policies" --insecure-http || exit 1
rest="http://127.0.0.1:$deep_rest_port"
adm="http://127.0.0.1:$deep_port"
segments() { python3 -c "import sys; print('/a' * int(sys.argv[1]), end='')" "$1"; }
p30000=$(segments 30000)
p512=$(segments 512)
p513=$(segments 513)
timed() {  # NAME WANT CURL-ARGS...: the status (and how long the answer took)
    local name=$1 want=$2; shift 2
    local t0 code
    t0=$(date +%s%N)
    code=$(curl -sS -o "$work/r.json" -w '%{http_code}' "$@")
    local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if [[ $code == "$want" ]] && (( ms < 2000 )); then pass "$name: $code in ${ms} ms"; else fail "$name: $code in ${ms} ms: $(head -c 200 "$work/r.json")"; fi
}
timed "PUT /v1/data with 30,000 segments" 400 -X PUT --data-binary '{}' "$rest/v1/data$p30000"
expect_eq "  ... names the limit" "$(json_get "$work/r.json" input.message)" "path too deep: 30000 segments (the limit is 512)"
timed "then PATCH /v1/data adding below it" 400 -X PATCH --data-binary "[{\"op\": \"add\", \"path\": \"$p30000/b\", \"value\": 1}]" "$rest/v1/data"
timed "PATCH below a 30,000-segment base" 400 -X PATCH --data-binary '[{"op": "add", "path": "/b", "value": 1}]' "$rest/v1/data$p30000"
timed "GET /v1/data with 30,000 segments" 400 "$rest/v1/data$p30000"
timed "DELETE /v1/data with 30,000 segments" 400 -X DELETE "$rest/v1/data$p30000"
timed "POST /validate/ with a 30,000-segment package" 400 --data-binary @"$fx/reviews/pod-good.json" "$adm/validate$p30000"
timed "PUT at 512 segments (the limit)" 204 -X PUT --data-binary '{"leaf": true}' "$rest/v1/data$p512"
timed "GET at 512 segments" 200 "$rest/v1/data$p512"
expect_eq "  ... the document" "$(cat "$work/r.json")" '{"result":{"leaf":true}}'
timed "PUT at 513 segments" 400 -X PUT --data-binary '{}' "$rest/v1/data$p513"
timed "PATCH whose pointer reaches 513 segments" 400 -X PATCH --data-binary "[{\"op\": \"add\", \"path\": \"$p512/b\", \"value\": 1}]" "$rest/v1/data"
timed "PATCH add at 512 segments" 204 -X PATCH --data-binary "[{\"op\": \"add\", \"path\": \"$(segments 511)/b\", \"value\": 1}]" "$rest/v1/data"
# JSON Patch copy and move are not OPA's operations: a document cannot be copied below itself.
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' -X PATCH \
    --data-binary "[{\"op\": \"copy\", \"from\": \"/a\", \"path\": \"$(segments 500)/c\"}]" "$rest/v1/data")
expect_eq "copy is refused as OPA refuses it" "$code $(json_get "$work/r.json" input.message)" "400 bad patch operation: copy"
timed "DELETE the deep document" 204 -X DELETE "$rest/v1/data/a"
expect_eq "still serving" \
    "$(curl -sS -o /dev/null -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" "$adm/validate/kubernetes/validating")" 200
kill -0 "$deep_pid" 2> /dev/null && pass "no crash" || fail "the server died"
stop_server "$deep_pid"

finish
