#!/usr/bin/env bash
# gavel serve under adversity (not part of the test suite): starts a server and
# reproduces, with figures,
#   1. slow evaluations filling every evaluation thread: latency of /health and
#      /metrics meanwhile, and how long admission and REST requests take to answer;
#   2. heavy queries under --eval-timeout 1s and --eval-memory-limit 512Mi (a second
#      server): how long each takes to answer, with what, and that server's peak RSS;
#      then builtins whose work or output outgrows their operands (object.union_n of
#      20,000 objects, reachable_paths of a dense graph, replace chains, http.send
#      reading /dev/zero, json.marshal of a value shared 2^40 times ...);
#   4. a kube-mgmt first sync (one 4.7 MB PUT /v1/data) and a 100 MB PUT: answer, time,
#      and RSS after the data is replaced (memory back to the baseline?);
#   5. PUT /v1/data/a/a/... with 30,000 segments, then PATCH /v1/data adding below it
#      (which crashed the server): answers, times, and whether the server survived;
# and prints the server's peak RSS. It runs older binaries too (one listener for
# everything, no --rest-addr), to compare before and after.
#
#   test/bench/adversity_serve.sh [GAVEL] [SLOW_SECONDS]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gavel=$(realpath "${1:-$root/build/cli/gavel}")
slow_seconds=${2:-4}
fx=$root/test/e2e/fixtures/serve
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

split=false
# (Read whole: with pipefail, grep -q closing the pipe early would fail the test.)
[[ $("$gavel" serve --help 2>&1) == *--rest-addr* ]] && split=true
args=(--policies "$fx/policies" --insecure-http --addr 127.0.0.1:0 --eval-timeout 30s)
if $split; then
    args+=(--rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 --eval-workers 2 --eval-queue 2)
else
    args+=(--threads 2 --max-body 300000000)  # one limit for everything before the split
fi
"$gavel" serve "${args[@]}" > /dev/null 2> "$work/server.log" &
pid=$!
port_of() { grep '"msg":"listening"' "$work/server.log" | grep "$1" | grep -o '"port":[0-9]*' | cut -d: -f2 | head -1; }
for _ in $(seq 1 100); do grep -q '"msg":"listening"' "$work/server.log" && ! $split && break
    [[ -n $(port_of '"listener":"admission"') ]] && break; sleep 0.1; done
if $split; then
    adm="http://127.0.0.1:$(port_of '"listener":"admission"')"
    rest="http://127.0.0.1:$(port_of '"listener":"rest"')"
    diag="http://127.0.0.1:$(port_of '"listener":"diagnostic"')"
else
    adm="http://127.0.0.1:$(port_of listening)"; rest=$adm; diag=$adm
fi
status_kb() { awk -v k="$1:" '$1 == k {print $2}' "/proc/$pid/status" 2> /dev/null; }
alive() { kill -0 "$pid" 2> /dev/null; }
echo "gavel: $gavel ($($split && echo "three listeners, 2 evaluation workers, queue 2" || echo "one listener, 2 threads"))"
echo "RSS at start: $(status_kb VmRSS) kB"

# A review the fixture's kubernetes.slow policy evaluates for about SLOW_SECONDS (n*n steps).
n=$(awk -v s="$slow_seconds" 'BEGIN {printf "%d", 4500 * sqrt(s)}')
"$gavel" eval --format raw -i "$fx/reviews/pod-good.json" \
    "json.marshal(json.patch(input, [{\"op\": \"add\", \"path\": \"/request/object/spec/n\", \"value\": $n}]))" > "$work/slow.json"
# timed NAME CURL-ARGS...: prints NAME, status and time to answer (curl's own clock)
timed() {
    local name=$1; shift
    local out
    out=$(curl -s -o "$work/body" -w '%{http_code} %{time_total}' --max-time 60 "$@")
    printf '  %-58s HTTP %s in %7.1f ms  %s\n' "$name" "${out%% *}" "$(awk -v t="${out##* }" 'BEGIN {print t * 1000}')" \
        "$(head -c 110 "$work/body" | tr '\n' ' ')"
}
# probes PATH N: latency distribution of N sequential GETs
probes() {
    for _ in $(seq 1 "$2"); do curl -s -o /dev/null -w '%{time_total}\n' --max-time 30 "$diag$1"; done | sort -g |
        awk '{t[NR] = $1 * 1000} END {printf "  %-20s %d probes: p50 %.1f ms, p90 %.1f ms, max %.1f ms\n", p, NR, t[int(NR * 0.5 + 0.5)], t[int(NR * 0.9 + 0.5)], t[NR]}' p="$1"
}

echo
echo "== 1. four ${slow_seconds}-second evaluations at once (every evaluation thread busy, more waiting)"
t0=$(date +%s%N)
clients=()
for i in 1 2 3 4; do
    curl -s -o "$work/slow$i.out" -w "  slow evaluation $i: HTTP %{http_code} in %{time_total} s\n" --max-time 120 \
        --data-binary @"$work/slow.json" "$adm/validate/kubernetes/slow" > "$work/slow$i.time" &
    clients+=($!)
done
sleep 0.3
probes /health 20
probes /health/ready 20
probes /metrics 20
timed "admission (a fast policy) meanwhile" --data-binary @"$fx/reviews/pod-bad.json" "$adm/validate/kubernetes/validating"
timed "REST GET /v1/data meanwhile" "$rest/v1/data/kubernetes/validating/deny"
wait "${clients[@]}"
for i in 1 2 3 4; do
    echo "$(cat "$work/slow$i.time")  $(head -c 90 "$work/slow$i.out" | grep -o '"allowed":[a-z]*' || true)"
done
echo "  all four answered after $(( ($(date +%s%N) - t0) / 1000000 )) ms"

echo
echo "== 2. deadlines and the memory limit (a second server: --eval-timeout 1s, --eval-memory-limit 512Mi)"
if $split; then
    "$gavel" serve --policies "$fx/policies" --insecure-http --addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 \
        --diagnostic-addr 127.0.0.1:0 --eval-timeout 1s --eval-memory-limit 512Mi > /dev/null 2> "$work/server2.log" &
    pid2=$!
    for _ in $(seq 1 100); do grep -q '"listener":"admission"' "$work/server2.log" && break; sleep 0.1; done
    rest2="http://127.0.0.1:$(grep '"listener":"rest"' "$work/server2.log" | grep -o '"port":[0-9]*' | cut -d: -f2 | head -1)"
    # query TEXT [INPUT-FILE]: the body of a POST /v1/query
    query() {
        python3 -c 'import json, sys; print(json.dumps({"query": sys.argv[1], "input": json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None}))' "$@" > "$work/q.json"
    }
    for q in 'count([x | some x in numbers.range(1, 1e7)]) > 0' \
             'count([n | some i in numbers.range(1, 2000); n := count(numbers.range(1, 100000))]) > 0' \
             'count(split(concat("", [s | some i in numbers.range(1, 80000); s := concat("", ["a,", sprintf("%0998d", [i])])]), ",")) > 0' \
             'strings.render_template(concat("", array.concat([t | some i in numbers.range(1, 5000); t := "{{if true}}"], [e | some i in numbers.range(1, 5000); e := "{{end}}"])), {}) == ""' \
             'count(concat(",", [sprintf("%d-%s", [i, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"]) | some i in numbers.range(1, 12000000)])) > 0' \
             'count(numbers.range(1, 100000000)) > 0'; do
        query "$q"
        timed "${q:0:58}" --data-binary @"$work/q.json" "$rest2/v1/query"
    done
    python3 -c 'import json; print(json.dumps([{"k%d" % i: i, "n": {"x%d" % i: i}} for i in range(20000)]))' > "$work/union.json"
    python3 -c 'import json; print(json.dumps({str(i): [str(j) for j in range(14) if j != i] for i in range(14)}))' > "$work/dense.json"
    ab='concat("", [s | some i in numbers.range(1, 100000); s := "ab"])'
    # a40: one string shared 2^40 times over in 40 arrays (object.get hides the type from the checker)
    shared=$(python3 -c 'print("; ".join(["a0 := \"xxxxxxxxxxxxxxxx\""] + ["a%d := object.get({\"k\": [a%d, a%d]}, \"k\", 0)" % (i, i - 1, i - 1) for i in range(1, 41)]))')
    while IFS=$'\t' read -r input q; do
        if [[ $input == - ]]; then query "$q"; else query "$q" "$work/$input"; fi
        label=${q/#"$shared; "/"(a40) "}
        timed "${label:0:58}" --data-binary @"$work/q.json" "$rest2/v1/query"
    done <<EOF2
union.json	count(object.union_n(input)) > 0
dense.json	count(graph.reachable_paths(input, {"0"})) > 0
-	count(replace(replace(replace(replace($ab, "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa")) > 0
-	count(strings.replace_n({"a": "aaaaaaaaaa"}, strings.replace_n({"a": "aaaaaaaaaa"}, strings.replace_n({"a": "aaaaaaaaaa"}, strings.replace_n({"a": "aaaaaaaaaa"}, $ab))))) > 0
-	count(regex.replace(regex.replace(regex.replace(regex.replace($ab, "a", "aaaaaaaaaa"), "a", "aaaaaaaaaa"), "a+", "\$0\$0\$0\$0\$0\$0\$0\$0\$0\$0"), "a+", "\$0\$0\$0\$0\$0\$0\$0\$0\$0\$0")) > 0
-	http.send({"method": "get", "url": "https://example.com", "tls_client_cert_file": "/dev/zero", "tls_client_key_file": "/dev/zero", "raise_error": false}).error.message
-	count(sprintf(concat("", [s | some i in numbers.range(1, 2000); s := "%1000000d"]), numbers.range(1, 2000))) > 0
-	count(concat(concat("", [s | some i in numbers.range(1, 100000); s := "abcdefghij"]), [s | some i in numbers.range(1, 2000); s := "x"])) > 0
-	$shared; count(json.marshal(a40)) > 0
-	$shared; count(yaml.marshal(a40)) > 0
-	$shared; count([p | walk(a40, [p, _])]) > 0
-	count(indexof_n(concat("", [s | some i in numbers.range(1, 200000); s := "aaaaaaaaaa"]), concat("", [s | some i in numbers.range(1, 100000); s := "aaaaaaaaaa"]))) > 0
-	count(net.cidr_contains_matches([c | some i in numbers.range(1, 5000); c := "10.0.0.0/8"], [c | some i in numbers.range(1, 5000); c := "10.1.0.0/16"])) > 0
EOF2
    echo "  second server's peak RSS (VmHWM): $(awk '$1 == "VmHWM:" {print $2}' /proc/$pid2/status) kB"
    kill -TERM "$pid2"; wait "$pid2" 2> /dev/null
else
    echo "  (needs --rest-addr: skipped for this binary)"
fi

echo
echo "== 4. large REST bodies"
python3 "$fx/gen/pods.py" 1500 > "$work/pods.json"
python3 "$fx/gen/pods.py" 32000 > "$work/pods-100m.json"
echo "  (bodies: $(wc -c < "$work/pods.json") and $(wc -c < "$work/pods-100m.json") bytes)"
timed "PUT /v1/data/kubernetes/pods, 1,500 Pods (kube-mgmt's sync)" -X PUT --data-binary @"$work/pods.json" "$rest/v1/data/kubernetes/pods"
timed "PUT {} there" -X PUT --data-binary '{}' "$rest/v1/data/kubernetes/pods"
sleep 1.5
base=$(status_kb VmRSS)
echo "  RSS baseline: ${base} kB"
timed "PUT /v1/data/kubernetes/pods, 32,000 Pods" -X PUT --data-binary @"$work/pods-100m.json" "$rest/v1/data/kubernetes/pods"
echo "  RSS holding it: $(status_kb VmRSS) kB"
timed "PUT {} there" -X PUT --data-binary '{}' "$rest/v1/data/kubernetes/pods"
sleep 2
echo "  RSS 2 s after replacing it: $(status_kb VmRSS) kB (baseline ${base} kB)"

echo
echo "== 5. deep paths"
deep=$(python3 -c "print('/a' * 30000, end='')")
timed "PUT /v1/data/a/a/... (30,000 segments)" -X PUT --data-binary '{}' "$rest/v1/data$deep"
timed "PATCH /v1/data adding below it" -X PATCH --data-binary "[{\"op\": \"add\", \"path\": \"$deep/b\", \"value\": 1}]" "$rest/v1/data"
sleep 0.5
if alive; then
    timed "GET /v1/data/a/a/... (30,000 segments)" "$rest/v1/data$deep"
    timed "POST /validate/a/a/... (30,000 segments)" --data-binary @"$fx/reviews/pod-good.json" "$adm/validate$deep"
    timed "admission afterwards" --data-binary @"$fx/reviews/pod-good.json" "$adm/validate/kubernetes/validating"
    echo "  server alive: yes"
else
    wait "$pid" 2> /dev/null
    echo "  server alive: NO (exit status $?)"
fi

echo
echo "peak RSS (VmHWM): $(status_kb VmHWM) kB"
alive && kill -TERM "$pid" && wait "$pid" 2> /dev/null
exit 0
