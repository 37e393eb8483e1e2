#!/usr/bin/env bash
# Peak memory of a whole `gavel test` run over a policy repository that is already
# on disk (e.g. a checkout of aquasecurity/trivy-checks), beside `opa test` on the
# same paths when an OPA binary is given: peak RSS (GNU time's "Maximum resident
# set size"), wall time and the PASS/FAIL/ERROR counts, which must agree.
# Target (issue 30): trivy-checks' whole run <= 80 MB.
# Usage: test/bench/test_run_memory.sh REPO_DIR [GAVEL] [OPA] [-- PATHS AND FLAGS...]
#   default paths and flags: lib/ checks/ examples/ --ignore '*.yaml' (trivy-checks' Makefile)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
repo=${1:?usage: test_run_memory.sh REPO_DIR [GAVEL] [OPA] [-- PATHS...]}
shift
gavel=$(realpath "${1:-$root/build/cli/gavel}")
[[ $# -gt 0 && $1 != -- ]] && shift
opa=""
if [[ $# -gt 0 && $1 != -- ]]; then opa=$(realpath "$1"); shift; fi
[[ $# -gt 0 && $1 == -- ]] && shift
args=("$@")
((${#args[@]})) || args=(lib/ checks/ examples/ --ignore '*.yaml')
cd "$repo"
run() {
    local name=$1; shift
    local out err
    out=$(mktemp) err=$(mktemp)
    /usr/bin/time -v "$@" >"$out" 2>"$err" || true
    local rss wall counts
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$err")
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$err")
    counts=$(grep -E '^(PASS|FAIL|ERROR|SKIPPED): ' "$out" | tr '\n' ' ')
    printf '%-6s peak RSS %6.1f MB  wall %s  %s\n' "$name" "$(echo "$rss / 1024" | bc -l)" "$wall" "${counts:-(no counts: $(head -c 200 "$err"))}"
    rm -f "$out" "$err"
}
run gavel "$gavel" test "${args[@]}"
[[ -n $opa ]] && run opa "$opa" test "${args[@]}"
exit 0
