#!/usr/bin/env bash
# Loading a 10 MB bundle: builds one (about 10 MB of data.json and 200 policies)
# with gavel build, then times `gavel eval -b` of it (archive and directory) with
# the timers gavel eval --metrics reports. Usage: bundle_load.sh GAVEL [RUNS]
set -euo pipefail
gavel=$(realpath "$1")
runs=${2:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/src" <<'PY'
import json, os, sys
src = sys.argv[1]
os.makedirs(f"{src}/inventory", exist_ok=True)
# ~10.3 MB of data: 45,000 objects of ~230 bytes each.
items = {f"item-{i:05d}": {"name": f"workload-{i}", "namespace": f"ns-{i % 50}", "labels": {"app": f"a{i % 97}",
         "team": f"t{i % 13}", "tier": "backend"}, "replicas": i % 7, "image": f"registry.example.com/app/{i % 500}:v{i % 11}",
         "ports": [80, 443, 8080 + i % 10]} for i in range(45000)}
json.dump({"workloads": items}, open(f"{src}/inventory/data.json", "w"))
for p in range(200):
    os.makedirs(f"{src}/policies/p{p}", exist_ok=True)
    open(f"{src}/policies/p{p}/policy.rego", "w").write(
        f"package policies.p{p}\n\ndeny contains msg if {{\n\tsome name, w in data.inventory.workloads\n"
        f"\tw.replicas > {p % 7}\n\tmsg := sprintf(\"%v: too many replicas\", [name])\n}}\n")
open(f"{src}/.manifest", "w").write('{"revision": "bench", "roots": ["inventory", "policies"]}')
PY
"$gavel" build -b "$work/src" -o "$work/bundle.tar.gz"
echo "bundle: $(du -sb "$work/src" | cut -f1) bytes unpacked, $(stat -c %s "$work/bundle.tar.gz") bytes compressed"
for what in "$work/bundle.tar.gz" "$work/src"; do
    best=""
    for _ in $(seq 1 "$runs"); do
        start=$(date +%s%N)
        n=$("$gavel" eval -b "$what" "count(data.inventory.workloads)" --format raw)
        [[ $n == 45000 ]] || { echo "unexpected result: $n"; exit 1; }
        ms=$(( ($(date +%s%N) - start) / 1000000 ))
        [[ -z $best || $ms -lt $best ]] && best=$ms
    done
    echo "gavel eval -b $(basename "$what"): best of $runs: ${best} ms (load, compile and one query)"
done
