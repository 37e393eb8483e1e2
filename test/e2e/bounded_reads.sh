#!/usr/bin/env bash
# Every file and stream the CLI reads is bounded (engine/file_read.hpp): /dev/zero,
# an endless FIFO, an endless stdin and a 2 GiB sparse file end in "file too large"
# within seconds and under 300 MB of memory; a directory where a file is expected
# gets OPA's error ("read DIR: is a directory") and exit status.
source "$(dirname "$0")/lib.sh"
writer=""
at_exit '[[ -n $writer ]] && kill "$writer" 2>/dev/null'
cd "$work"


max_rss_kb=300000   # "under 300 MB"
max_seconds=60      # "within seconds", generous for a loaded 2-core machine

printf 'package p\n\nallow := true\n' > p.rego
printf '{"a": 1}\n' > input.json
mkdir dir
truncate -s 2G sparse.json
mkfifo fifo.json
truncate -s 2G sparse.rego

# bounded NAME STATUS EXPECTED-TEXT STDIN CMD...: runs CMD (stdin from STDIN: a file,
# "zero" for an endless pipe, or "fifo" to start an endless writer into fifo.json) under
# a memory ceiling that keeps the machine safe should a read be unbounded again; checks
# the exit status, that stdout or stderr holds EXPECTED-TEXT, the peak RSS and the time.
bounded() {
    local name=$1 want_status=$2 want_text=$3 stdin=$4; shift 4
    local start=$SECONDS status
    writer=""
    if [[ $stdin == fifo ]]; then
        ( exec cat /dev/zero > fifo.json ) 2>/dev/null &
        writer=$!
        stdin=/dev/null
    fi
    if [[ $stdin == zero ]]; then
        cat /dev/zero | ( ulimit -v 4000000; exec /usr/bin/time -f %M -o rss timeout "$max_seconds" "$@" ) > out 2> err
        status=${PIPESTATUS[1]}
    else
        ( ulimit -v 4000000; exec /usr/bin/time -f %M -o rss timeout "$max_seconds" "$@" ) < "$stdin" > out 2> err
        status=$?
    fi
    if [[ -n $writer ]]; then
        kill "$writer" 2>/dev/null
        wait "$writer" 2>/dev/null
        writer=""
    fi
    local rss
    rss=$(grep -E '^[0-9]+$' rss | tail -1)
    if [[ $status -ne $want_status ]]; then
        fail "$name: exit $status, want $want_status (after $((SECONDS - start))s)"; head -c 400 err; echo; return
    fi
    if ! grep -qF -- "$want_text" out err; then
        fail "$name: no '$want_text' in the output"; head -c 400 out err; echo; return
    fi
    if [[ -z $rss || $rss -ge $max_rss_kb ]]; then
        fail "$name: peak RSS ${rss:-unknown} kB, want under $max_rss_kb kB"; return
    fi
    echo "ok   $name (${rss} kB, $((SECONDS - start))s)"
}

too_large="file too large: more than the limit of 268435456 bytes"
sparse_large="file too large: 2147483648 bytes (limit 268435456)"

# ---- endless sources, one per reader ---------------------------------------------------
for src in /dev/zero fifo; do
    path=$src; in=/dev/null
    [[ $src == fifo ]] && { path=fifo.json; in=fifo; }
    bounded "eval -i $src" 2 "read $path: $too_large" $in "$gavel" eval -i "$path" -d p.rego input
    bounded "eval -d $src" 2 "read $path: $too_large" $in "$gavel" eval -d "$path" data
    bounded "eval -s $src" 2 "read $path: $too_large" $in "$gavel" eval -s "$path" -d p.rego input
    bounded "eval --capabilities $src" 2 "read $path: $too_large" $in "$gavel" eval --capabilities "$path" -d p.rego input
    bounded "eval -b $src" 2 "read $path: $too_large" $in "$gavel" eval -b "$path" data
    bounded "test $src" 1 "read $path: $too_large" $in "$gavel" test "$path"
    bounded "check $src" 1 "read $path: $too_large" $in "$gavel" check "$path"
    bounded "parse $src" 1 "read $path: $too_large" $in "$gavel" parse "$path"
    bounded "bench -i $src" 1 "read $path: $too_large" $in "$gavel" bench -i "$path" -d p.rego --count 1 input
    bounded "bench -d $src" 1 "read $path: $too_large" $in "$gavel" bench -d "$path" --count 1 data
    bounded "repl -i $src" 1 "read $path: $too_large" $in "$gavel" repl -i "$path"
    bounded "repl -d $src" 1 "read $path: $too_large" $in "$gavel" repl -d "$path"
    bounded "build $src" 1 "read $path: $too_large" $in "$gavel" build -o out.tar.gz "$path"
    bounded "inspect $src" 1 "read $path: $too_large" $in "$gavel" inspect "$path"
    bounded "audit $src" 1 "read $path: file too large: more than the limit of 67108864 bytes" $in "$gavel" audit --gatekeeper "$path"
    bounded "webhook-config --ca-bundle $src" 1 "read $path: $too_large" $in "$gavel" webhook-config --policies p.rego --url https://example.com --ca-bundle "$path"
    bounded "run --config-file $src" 1 "read $path: $too_large" $in "$gavel" run --server --addr 127.0.0.1:0 --config-file "$path" p.rego
done
# A FIFO named like a policy, met by fmt (which reads only .rego files).
rm -f fifo.json && mkfifo fifo.rego && ln -s fifo.rego fifo.json
bounded "fmt fifo.rego" 2 "read fifo.rego: $too_large" fifo "$gavel" fmt fifo.rego

# ---- endless stdin -----------------------------------------------------------------------
bounded "eval -I" 2 "read stdin: $too_large" zero "$gavel" eval -I -d p.rego input
bounded "eval --stdin" 2 "read stdin: $too_large" zero "$gavel" eval --stdin
bounded "bench -I" 1 "read stdin: $too_large" zero "$gavel" bench -I -d p.rego --count 1 input
bounded "fmt (stdin)" 1 "read stdin: $too_large" zero "$gavel" fmt
bounded "repl (stdin)" 1 "read stdin: statement too large: more than the limit of 1048576 bytes" zero "$gavel" repl
# An endless statement of open brackets: each line scanned once (not the whole statement
# again at every line), so it ends at the bound quickly.
yes '[' | head -c 3000000 > brackets.txt
bounded "repl (stdin of open brackets)" 1 "read stdin: statement too large" brackets.txt "$gavel" repl
bounded "eval -I < sparse" 2 "read stdin: $sparse_large" sparse.json "$gavel" eval -I input

# ---- a 2 GiB sparse file: refused from its size, nothing read --------------------------
bounded "eval -i sparse" 2 "read sparse.json: $sparse_large" /dev/null "$gavel" eval -i sparse.json input
bounded "eval -d sparse" 2 "read sparse.json: $sparse_large" /dev/null "$gavel" eval -d sparse.json data
bounded "test sparse" 1 "read sparse.rego: $sparse_large" /dev/null "$gavel" test sparse.rego
bounded "check sparse" 1 "read sparse.rego: $sparse_large" /dev/null "$gavel" check sparse.rego
bounded "fmt sparse" 2 "read sparse.rego: $sparse_large" /dev/null "$gavel" fmt sparse.rego

# ---- a directory where a file is expected: OPA's error and status -----------------------
bounded "eval -i DIR" 2 "read dir: is a directory" /dev/null "$gavel" eval -i dir -d p.rego input
bounded "parse DIR" 1 "read dir: is a directory" /dev/null "$gavel" parse dir
bounded "bench -i DIR" 1 "read dir: is a directory" /dev/null "$gavel" bench -i dir -d p.rego --count 1 input
bounded "repl -i DIR" 1 "read dir: is a directory" /dev/null "$gavel" repl -i dir
bounded "eval --capabilities DIR" 2 "read dir: is a directory" /dev/null "$gavel" eval --capabilities dir input

# ---- and the ordinary reads still work --------------------------------------------------
bounded "eval -i FILE" 0 '"a": 1' /dev/null "$gavel" eval -i input.json input
bounded "eval -I" 0 '"a": 1' input.json "$gavel" eval -I input
printf '{"x": 2}' > piped.json
bounded "eval -i <(pipe)" 0 '"x": 2' /dev/null "$gavel" eval -i <(cat piped.json) input

finish
