#!/usr/bin/env bash
# Bundles at scale and under attack. 50,000 manifest roots load in seconds in every
# entry point (build -b, eval -b, serve -b, a bundle service), with OPA's overlap error;
# gzip bombs and entries announcing more than they hold are refused from their headers,
# in seconds and little memory, and unused files are not kept; size_limit_bytes is
# OPA's, with OPA's text; SIGTERM while a bundle service's bundle downloads ends the
# process at once. Bounds are generous for a loaded 2-core machine: before the fixes
# these took minutes (roots: quadratic), ~930 MB (bombs) and the whole download (SIGTERM).
source "$(dirname "$0")/lib.sh"
expect_in() { if [[ "$2" == *"$3"* ]]; then pass "$1"; else fail "$1: [$2] lacks [$3]"; fi; }

# measure SECONDS CMD...: runs CMD (killed after SECONDS); prints "<seconds> <peak RSS KiB> <exit status>"
# on its first line, then CMD's output.
measure() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.monotonic()
try:
    r = subprocess.run(sys.argv[2:], capture_output=True, timeout=float(sys.argv[1]))
    status, out = r.returncode, r.stdout + r.stderr
except subprocess.TimeoutExpired as e:
    status, out = "timeout", (e.stdout or b"") + (e.stderr or b"")
print(f"{time.monotonic() - start:.2f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} {status}")
sys.stdout.write(out.decode(errors="replace"))
PY
}
# within NAME MAX_SECONDS MAX_KIB RESULT: RESULT's first line is measure's.
within() {
    local name=$1 max_s=$2 max_kib=$3 head; head=$(head -1 <<< "$4")
    read -r secs kib status <<< "$head"
    if [[ $status == timeout ]]; then fail "$name: still running after ${max_s}s"; return; fi
    python3 -c "import sys; sys.exit(0 if $secs <= $max_s and $kib <= $max_kib else 1)" &&
        pass "$name (${secs}s, $((kib / 1024)) MiB)" || fail "$name: ${secs}s, ${kib} KiB (bounds ${max_s}s, ${max_kib} KiB)"
}

# ---- 50,000 manifest roots ---------------------------------------------------------------------------------
python3 - "$work/roots" <<'PY'
import json, os, sys
d = sys.argv[1]
os.makedirs(d)
n = 50000
json.dump({"revision": "many", "roots": [f"r{i}" for i in range(n)]}, open(f"{d}/.manifest", "w"))
json.dump({f"r{i}": {"v": i} for i in range(n)}, open(f"{d}/data.json", "w"))
for m in range(0, n, 1000):
    os.makedirs(f"{d}/r{m}")
    open(f"{d}/r{m}/p.rego", "w").write(f"package r{m}\n\nx := data.r{m}.v + 1\n")
PY
r=$(measure 60 "$gavel" build -b "$work/roots" -o "$work/roots.tar.gz")
within "build -b: 50,000 roots" 10 400000 "$r"
r=$(measure 60 "$gavel" eval -b "$work/roots.tar.gz" --format raw 'data.r49000.x')
within "eval -b: 50,000 roots" 10 400000 "$r"
expect_eq "eval -b: 50,000 roots, the answer" "$(tail -n +2 <<< "$r")" 49001
cp -r "$work/roots" "$work/overlap"
python3 - "$work/overlap/.manifest" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m["roots"].append("r123/x"); json.dump(m, open(sys.argv[1], "w"))
PY
r=$(measure 60 "$gavel" eval -b "$work/overlap" data.r1)
within "eval -b: overlapping roots among 50,000" 10 400000 "$r"
expect_in "eval -b: OPA's overlap error" "$r" "manifest has overlapped roots: 'r123' and 'r123/x'"
start_server many --insecure-http -b "$work/roots.tar.gz" || exit 1
expect_eq "serve -b: 50,000 roots served" "$(curl -s "http://127.0.0.1:$many_rest_port/v1/data/r49999/v")" '{"result":49999}'
stop_server "$many_pid"

srv=$work/srv
mkdir -p "$srv"
python3 test/e2e/fixtures/bundles/bundle_server.py "$srv" &
for _ in $(seq 1 100); do [[ -f $srv/port ]] && break; sleep 0.1; done
port=$(cat "$srv/port")
cp "$work/roots.tar.gz" "$srv/many.tar.gz"
# config NAME [EXTRA]: one bundle, NAME, from bundles/NAME, polled every second.
config() {
    printf 'services:\n  srv:\n    url: http://127.0.0.1:%s\nbundles:\n  %s:\n    service: srv\n    resource: bundles/%s\n' "$port" "$1" "$1"
    printf '    polling:\n      min_delay_seconds: 1\n      max_delay_seconds: 2\n%s' "${2:-}"
}
config many > "$work/many.yaml"
start=$(date +%s%N)
start_server svc --insecure-http -c "$work/many.yaml" || exit 1
for _ in $(seq 1 200); do [[ $(curl -s "http://127.0.0.1:$svc_rest_port/v1/data/r49999/v") == '{"result":49999}' ]] && break; sleep 0.1; done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
((ms < 15000)) && pass "bundle service: 50,000 roots activated (${ms} ms)" || fail "bundle service: 50,000 roots not active after ${ms} ms"
stop_server "$svc_pid"

# ---- gzip bombs and lying headers ---------------------------------------------------------------------------
# bomb NAME OUT MiB [EXTRA_NAME EXTRA_TEXT]: a tar.gz whose entry NAME holds MiB mebibytes of '0',
# written as repeated gzip members (as gzip readers accept) so that making it is quick.
bomb() {
    python3 - "$@" <<'PY'
import gzip, io, sys, tarfile
name, out, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
size = mib << 20
head = tarfile.TarInfo(name); head.size = size
chunk = gzip.compress(b"0" * (1 << 20), 9)
with open(out, "wb") as f:
    f.write(gzip.compress(head.tobuf(format=tarfile.USTAR_FORMAT)))
    for _ in range(mib):
        f.write(chunk)
    tail = b""
    if len(sys.argv) > 4:
        extra = tarfile.TarInfo(sys.argv[4]); data = sys.argv[5].encode(); extra.size = len(data)
        tail = extra.tobuf(format=tarfile.USTAR_FORMAT) + data + b"\0" * ((512 - len(data) % 512) % 512)
    f.write(gzip.compress(tail + b"\0" * 1024))
PY
}
bomb data.json "$work/bomb.tar.gz" 900
echo "bomb: $(stat -c %s "$work/bomb.tar.gz") bytes compressed, 900 MiB of data.json"
r=$(measure 60 "$gavel" eval -b "$work/bomb.tar.gz" data)
within "a 900 MiB data.json bomb is refused from its header" 5 100000 "$r"
expect_in "... in the JSON reader's words" "$r" "bundle load failed on data.json: JSON input too large: 943718400 bytes (limit 268435456)"
bomb README.md "$work/junk.tar.gz" 900 p.rego $'package p\n\nx := 1\n'
r=$(measure 120 "$gavel" eval -b "$work/junk.tar.gz" --format raw data.p.x)
within "a 900 MiB file gavel does not use is not kept" 60 100000 "$r"
expect_eq "... and the bundle loads" "$(tail -n +2 <<< "$r")" 1
python3 - "$work/liar.tar.gz" <<'PY'
import gzip, sys, tarfile
head = tarfile.TarInfo("blob.bin"); head.size = 900 << 20
open(sys.argv[1], "wb").write(gzip.compress(head.tobuf(format=tarfile.USTAR_FORMAT) + b"0" * 4096))
PY
r=$(measure 60 "$gavel" eval -b "$work/liar.tar.gz" data)
within "an entry announcing 900 MiB and holding 4 KiB costs what it holds" 5 100000 "$r"
expect_in "... and is truncated" "$r" "bundle read failed: entry blob.bin is truncated (943718400 bytes announced)"

# size_limit_bytes (per file, OPA's text as `opa run -c` logs it)
mkdir -p "$work/big/app"
python3 -c "import json; json.dump({'app': {'blob': 'x' * 3000}}, open('$work/big/data.json', 'w'))"
echo '{"roots": ["app"]}' > "$work/big/.manifest"
"$gavel" build -b "$work/big" -o "$srv/big.tar.gz"
config big '    size_limit_bytes: 1000
' > "$work/big.yaml"
start_server big --insecure-http -c "$work/big.yaml" || exit 1
wait_for() { local n=$(( $1 * 10 )); shift; for _ in $(seq 1 "$n"); do "$@" && return 0; sleep 0.1; done; return 1; }
wait_for 8 grep -q 'bundle read failed: bundle file /data.json size (3020 bytes) exceeds configured size_limit_bytes (1000 bytes)' "$big_log" &&
    pass "size_limit_bytes: OPA's error" || fail "size_limit_bytes: $(grep -o '"error":"[^"]*"' "$big_log" | head -1)"
stop_server "$big_pid"

# ---- SIGTERM while a bundle downloads ------------------------------------------------------------------------
cp "$work/roots.tar.gz" "$srv/slow.tar.gz"
echo 40 > "$srv/slow.slow"  # the body trickles out over 40 s
config slow > "$work/slow.yaml"
start_server slow --insecure-http -c "$work/slow.yaml" || exit 1
wait_for 10 test -f "$srv/slow.sending" || fail "the slow download did not start"
start=$(date +%s%N)
kill -TERM "$slow_pid"
for _ in $(seq 1 150); do kill -0 "$slow_pid" 2>/dev/null || break; sleep 0.1; done
ms=$(( ($(date +%s%N) - start) / 1000000 ))
if kill -0 "$slow_pid" 2>/dev/null; then fail "SIGTERM during a bundle download: still alive after ${ms} ms"; kill -9 "$slow_pid"
else ((ms < 10000)) && pass "SIGTERM during a bundle download: gone in ${ms} ms" || fail "SIGTERM during a bundle download: ${ms} ms"; fi
wait "$slow_pid" 2>/dev/null
rm -f "$srv/slow.slow"

finish
