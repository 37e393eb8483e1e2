#!/usr/bin/env bash
# gavel serve while a policy is rewritten in place, over and over: truncated,
# then written in pieces (as `cat > f`, kubectl cp or an editor saving in place
# do), with admission reviews posted all the time. Half-written states parse
# (the package alone, or without its deny rule) and would allow everything:
# a reload must never take them. Every answer must be a denial by one of the
# complete versions; and once the writes stop, the last version must be served
# within a few seconds.
#
# STORM_SECONDS (default 12) sets how long the storm lasts, STORM_RELOAD_INTERVAL
# (default 100ms) the server's --reload-interval.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
storm_seconds=${STORM_SECONDS:-12}
reload_interval=${STORM_RELOAD_INTERVAL:-100ms}

mkdir -p "$work/policies"
policy="$work/policies/registry.rego"
# The policy of VERSION, in the pieces it is written in: each prefix but the
# third parses, and only the whole has the deny rule.
pieces() {
    piece[0]=$'package kubernetes.registry\n\n'
    piece[1]=$'registry := "hooli.com/"\n\n'
    piece[2]=$'deny contains msg if {\n\tsome container in input.request.object.spec.containers\n'
    piece[3]=$'\tnot startswith(container.image, registry)\n\tmsg := sprintf("'"$1"$': image \'%v\' is not from %v", [container.image, registry])\n}\n'
}
# rewrite VERSION: in place, piece by piece, a few milliseconds apart.
rewrite() {
    pieces "$1"
    : > "$policy"
    for p in "${piece[@]}"; do
        printf '%s' "$p" >> "$policy"
        sleep "0.0$((RANDOM % 3))"
    done
}
pieces v0
printf '%s' "${piece[@]}" > "$policy"

start_server storm --policies "$work/policies" --insecure-http --reload-interval "$reload_interval" || exit 1
url="http://127.0.0.1:$storm_port/validate/kubernetes/registry"

# Clients: batches of reviews on one kept-alive connection each, one answer per line.
client() {
    local args=() i
    for i in $(seq 1 100); do args+=("$url"); done
    while [[ ! -e $work/stop ]]; do
        curl -sS -H 'Content-Type: application/json' --data-binary @"$fx/reviews/pod-bad.json" -w '\n' "${args[@]}" >> "$1" 2>&1
    done
}
writer() {
    local n=0
    while [[ ! -e $work/stop ]]; do
        n=$((n + 1))
        rewrite "v$((n % 2 + 1))"
        sleep "0.$((RANDOM % 7))"  # now and then long enough for a reload to take the whole
    done
}
client "$work/answers1" &
client1=$!
client "$work/answers2" &
client2=$!
writer &
writer_pid=$!
sleep "$storm_seconds"
touch "$work/stop"
wait "$client1" "$client2" "$writer_pid"

answers=$(cat "$work"/answers* | grep -c .)
# Right: denied, with the message of a complete version.
right=$(cat "$work"/answers* | grep -c "\"allowed\":false.*v[0-2]: image 'mysql' is not from hooli.com/")
wrong=$((answers - right))
echo "storm: $answers answers, $wrong wrong; denials by version: $(for v in v0 v1 v2; do
    printf '%s=%s ' $v "$(cat "$work"/answers* | grep -c "\"allowed\":false.*$v: image 'mysql'")"; done)"
if ((wrong > 0)); then
    echo "some wrong answers:"
    cat "$work"/answers* | grep -v "\"allowed\":false.*v[0-2]: image 'mysql' is not from hooli.com/" | sort | uniq -c | sort -rn | head -5
fi
((answers > 100)) && pass "storm: answers posted throughout ($answers)" || fail "storm: too few answers ($answers)"
expect_eq "storm: no wrong answer" "$wrong" 0

# The writes stop: the last version is served soon after.
rewrite v3
stopped=$(date +%s%N)
message() {
    curl -sS --data-binary @"$fx/reviews/pod-bad.json" "$url" -o "$work/r.json"
    json_get "$work/r.json" 'object.get(input.response, ["status", "message"], "allowed")'
}
want="v3: image 'mysql' is not from hooli.com/, v3: image 'nginx' is not from hooli.com/"
got=""
for _ in $(seq 1 100); do got=$(message); [[ $got == "$want" ]] && break; sleep 0.1; done
took=$(( ($(date +%s%N) - stopped) / 1000000 ))
echo "storm: the last version served ${took} ms after the writes stopped"
expect_eq "storm: the last version is served once the writes stop" "$got" "$want"
grep -q '"level":"error"' "$storm_log" && { fail "errors logged"; grep '"level":"error"' "$storm_log" | head -3; }
stop_server "$storm_pid"

finish
