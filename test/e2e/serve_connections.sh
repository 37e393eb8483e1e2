#!/usr/bin/env bash
# gavel serve under connection floods: 10,000 connections that send nothing, then
# 10,000 that send part of a TLS ClientHello, cost the admission listener little
# (in a 256 MiB memory cgroup when the test may make one: no OOM kill), admission
# answers meanwhile, and RSS comes back after they close. At --max-connections a
# new connection takes the place of the one waiting longest, or is closed at once
# when all are busy. The soft open file limit is raised to the hard one, and
# accept backs off (no spinning) when descriptors run out.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
cgroup=""
# The servers must be gone before their cgroup can be removed.
at_exit 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null; [[ -n $cgroup ]] && rmdir "$cgroup" 2>/dev/null'
clients() { python3 "$fx/clients.py" "$@"; }
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
review() {  # PORT: an admission request over TLS; prints the status, the seconds taken and whether a review came back
    curl -sSk -o "$work/r.json" -w '%{http_code} %{time_total}' --max-time 20 \
        --data-binary @"$fx/reviews/pod-good.json" "https://127.0.0.1:$1/validate/kubernetes/validating"
    echo " $(json_get "$work/r.json" 'input.response.allowed')"
}
within() { awk -v t="$1" -v max="$2" 'BEGIN { exit !(t < max) }'; }

# memory_cgroup PID BYTES: moves PID into a new memory cgroup of BYTES (v1 or v2), when this
# test may make one (root, a writable hierarchy); sets $cgroup and $oom_file, else leaves them empty.
memory_cgroup() {
    local dir
    if grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        dir=/sys/fs/cgroup/gavel-e2e-$$
        mkdir "$dir" 2>/dev/null && echo "$2" > "$dir/memory.max" 2>/dev/null && echo "$1" > "$dir/cgroup.procs" 2>/dev/null \
            && { cgroup=$dir; oom_file=$dir/memory.events; return; }
    elif [[ -d /sys/fs/cgroup/memory ]]; then
        dir=/sys/fs/cgroup/memory/gavel-e2e-$$
        mkdir "$dir" 2>/dev/null && echo "$2" > "$dir/memory.limit_in_bytes" 2>/dev/null \
            && echo "$1" > "$dir/cgroup.procs" 2>/dev/null && { cgroup=$dir; oom_file=$dir/memory.oom_control; return; }
    fi
    [[ -n ${dir:-} ]] && rmdir "$dir" 2>/dev/null
    oom_file=""
}

# ---- 10,000 idle connections, then 10,000 partial ClientHellos --------------------------------------------
start_server flood --policies "$fx/policies" || exit 1
adm=$flood_port
review "$adm" > /dev/null  # warm up: the first evaluation's memory is not the flood's
sleep 1.2
base_kb=$(rss_kb "$flood_pid")
memory_cgroup "$flood_pid" $((256 << 20))
if [[ -n $cgroup ]]; then echo "     in a 256 MiB memory cgroup ($cgroup)"; else echo "     no memory cgroup here: RSS bounds only"; fi
hard=$(ulimit -Hn)
n=$(( hard - 200 < 10000 ? hard - 200 : 10000 ))
t_flood=$(date +%s)
for mode in idle hello; do
    rm -f "$work/release"
    clients flood "$adm" "$n" "$mode" "$work/release" > "$work/flood.out" &
    client=$!
    for _ in $(seq 1 600); do grep -q '^opened' "$work/flood.out" && break; sleep 0.1; done
    high_kb=$(rss_kb "$flood_pid")
    read -r code secs allowed < <(review "$adm")
    touch "$work/release"
    wait "$client"
    echo "     $mode: $(tr '\n' ' ' < "$work/flood.out")(held by the server), RSS ${base_kb} kB -> ${high_kb:-dead} kB"
    kill -0 "$flood_pid" 2>/dev/null && pass "$mode: $n connections, the server lives" || fail "$mode: the server died"
    expect_eq "$mode: $(head -1 "$work/flood.out")" "$(head -1 "$work/flood.out")" "opened $n"
    if [[ $code == 200 && $allowed == true ]] && within "$secs" 3; then pass "$mode: admission answered meanwhile in ${secs} s"
    else fail "$mode: admission meanwhile: HTTP $code in ${secs} s: $(head -c 200 "$work/r.json")"; fi
    (( ${high_kb:-999999999} < base_kb + 64 * 1024 )) && pass "$mode: RSS grew by less than 64 MB" \
        || fail "$mode: RSS ${high_kb:-?} kB (from ${base_kb} kB)"
    open=$(awk '$1 == "open" {print $2}' "$work/flood.out")
    (( ${open:-0} <= 512 )) && pass "$mode: at most 512 held open ($open)" || fail "$mode: $open connections held open"
    after_kb=""
    for _ in $(seq 1 40); do
        after_kb=$(rss_kb "$flood_pid")
        (( ${after_kb:-999999999} <= base_kb + 8 * 1024 )) && break
        sleep 0.2
    done
    (( ${after_kb:-999999999} <= base_kb + 8 * 1024 )) && pass "$mode: RSS back within 8 MB of the start (${after_kb} kB)" \
        || fail "$mode: RSS stayed at ${after_kb:-?} kB (start ${base_kb} kB)"
done
if [[ -n $cgroup ]]; then
    oom=$(awk '$1 == "oom_kill" {print $2}' "$oom_file")
    expect_eq "no OOM kill in the 256 MiB cgroup" "${oom:-0}" 0
fi
lines=$(grep -c '"msg":"connection limit reached"' "$flood_log")
seconds=$(( $(date +%s) - t_flood + 1 ))
(( lines >= 1 && lines <= seconds )) && pass "the cap is logged, once a second at most ($lines lines in ${seconds} s)" \
    || fail "$lines 'connection limit reached' lines in ${seconds} s"
expect_eq "still deciding" "$(review "$adm" | awk '{print $1, $3}')" "200 true"
stop_server "$flood_pid"
[[ -n $cgroup ]] && rmdir "$cgroup" 2>/dev/null && cgroup=""

# ---- --max-connections: the connection waiting longest makes room; when all are busy, refused -------------
start_server capped --policies "$fx/policies" --insecure-http --max-connections 4 --eval-workers 4 || exit 1
adm="http://127.0.0.1:$capped_port"
rm -f "$work/release"
clients flood "$capped_port" 4 idle "$work/release" > "$work/flood.out" &
client=$!
for _ in $(seq 1 100); do grep -q '^opened' "$work/flood.out" && break; sleep 0.1; done
# The clients' connect() returns once the kernel has queued a connection; wait until the server
# has accepted all four (its gauge says so), or a loaded machine races the new request past them.
admission_open() {
    curl -sS "http://127.0.0.1:$capped_diag_port/metrics" |
        awk '/^gavel_connections\{listener="admission"/ {print $2}'
}
for _ in $(seq 1 100); do [[ $(admission_open) == 4 ]] && break; sleep 0.1; done
expect_eq "the four idle connections are accepted" "$(admission_open)" 4
code=$(curl -sS -o "$work/r.json" -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" "$adm/validate/kubernetes/validating")
expect_eq "4 idle connections at a cap of 4: a new request is served" "$code" 200
touch "$work/release"
wait "$client"
expect_eq "  ... in place of one idle connection" "$(tail -1 "$work/flood.out")" "open 3"
grep '"msg":"connection limit reached"' "$capped_log" | grep -q '"closed_waiting":1' && pass "  ... logged" || fail "eviction not logged"
# Four requests in evaluation (busy connections): a fifth connection is closed at once.
"$gavel" eval --format raw -i "$fx/reviews/pod-good.json" \
    'json.marshal(json.patch(input, [{"op": "add", "path": "/request/object/spec/n", "value": 9000}]))' > "$work/slow.json"
slow=()
for i in 1 2 3 4; do
    curl -sS -o /dev/null -w '%{http_code}\n' --max-time 60 --data-binary @"$work/slow.json" "$adm/validate/kubernetes/slow" > "$work/slow$i.code" &
    slow+=($!)
done
sleep 1
code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 "$adm/health" 2> /dev/null)
expect_eq "every connection busy: a new one is closed at once" "$code" 000
grep -q '"refused":1' "$capped_log" && pass "  ... counted as refused" || fail "refusal not logged: $(grep 'connection limit' "$capped_log" | tail -1)"
wait "${slow[@]}"
expect_eq "the busy requests are answered" "$(cat "$work"/slow?.code | sort -u)" 200
expect_eq "afterwards, served again" \
    "$(curl -sS -o /dev/null -w '%{http_code}' --data-binary @"$fx/reviews/pod-good.json" "$adm/validate/kubernetes/validating")" 200
stop_server "$capped_pid"

# ---- open file limit: the soft limit is raised to the hard one -----------------------------------------------
if (( $(ulimit -Hn) > 256 )); then
    (
        ulimit -Sn 256
        start_server fds --policies "$fx/policies" --insecure-http || exit 1
        read -r soft hard < <(awk '/Max open files/ {print $4, $5}' "/proc/$fds_pid/limits")
        stop_server "$fds_pid"
        [[ $soft == "$hard" ]] && echo "ok   soft open file limit 256 raised to the hard limit ($hard)" \
            || { echo "FAIL soft open file limit stayed at $soft (hard $hard)"; exit 1; }
    ) || failures=$((failures + 1))
fi

# ---- out of descriptors: accept backs off, and serves again once they are back -----------------------------
(
    ulimit -n 64
    start_server starved --policies "$fx/policies" --insecure-http || exit 1
    echo "$starved_pid $starved_port $starved_log" > "$work/starved"
    wait "$starved_pid"
) &
for _ in $(seq 1 100); do [[ -s $work/starved ]] && break; sleep 0.1; done
read -r spid sport slog < "$work/starved"
rm -f "$work/release"
clients flood "$sport" 100 idle "$work/release" > "$work/flood.out" &
client=$!
for _ in $(seq 1 100); do grep -q '^opened' "$work/flood.out" && break; sleep 0.1; done
sleep 0.5
c0=$(cpu_ticks "$spid")
sleep 3
c1=$(cpu_ticks "$spid")
(( c1 - c0 < 60 )) && pass "100 connections, 64 descriptors: $((c1 - c0)) CPU ticks in 3 s (no spinning)" \
    || fail "accept spins: $((c1 - c0)) CPU ticks in 3 s"
lines=$(grep -c '"msg":"accept failed; retrying"' "$slog")
(( lines >= 1 && lines <= 5 )) && pass "accept failures logged once a second ($lines lines)" || fail "$lines accept failure lines"
touch "$work/release"
wait "$client"
code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 --data-binary @"$fx/reviews/pod-good.json" \
    "http://127.0.0.1:$sport/validate/kubernetes/validating")
expect_eq "descriptors back: served again" "$code" 200
stop_server "$spid"

finish
