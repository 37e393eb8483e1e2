#!/usr/bin/env bash
# Start-up cost of the gavel binary: `gavel version` and a one-shot `gavel eval`
# on the image-registry example (examples/admission-v1), median of N runs.
# Uses hyperfine when installed, else a timing loop of its own (python3's
# perf_counter around fork+exec+wait; /bin/true is measured too, as the floor).
# Targets (issue 19): version <= 2 ms, eval <= 4 ms.
# Usage: test/bench/startup.sh [GAVEL] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
gavel=$(realpath "${1:-build/cli/gavel}")
runs=${2:-300}
eval_cmd=("$gavel" eval -d examples/admission-v1 -i examples/admission-v1/pod.json data.kubernetes.admission.deny)
echo "binary: $gavel ($(stat -c %s "$gavel") bytes; $(file -b "$gavel" | cut -d, -f1-2))"
if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 20 --runs "$runs" "$gavel version" "${eval_cmd[*]}"
    exit 0
fi
python3 - "$runs" "$gavel" "${eval_cmd[@]}" <<'PY'
import subprocess, sys, time, statistics
runs, gavel, eval_cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
def measure(cmd):
    for _ in range(20):
        subprocess.run(cmd, stdout=subprocess.DEVNULL)
    t = []
    for _ in range(runs):
        a = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
        t.append((time.perf_counter() - a) * 1000)
    t.sort()
    return statistics.median(t), t[len(t) // 10], t[-len(t) // 10]
for name, cmd in [("/bin/true (floor)", ["/bin/true"]), ("gavel version", [gavel, "version"]), ("gavel eval (image registry)", eval_cmd)]:
    med, p10, p90 = measure(cmd)
    print(f"{name:32s} median {med:6.2f} ms   p10 {p10:6.2f}   p90 {p90:6.2f}")
PY
