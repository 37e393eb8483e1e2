#!/usr/bin/env python3
"""Records the reference OPA's answers to the replay corpus.

    record.py --opa /path/to/opa [SCENARIO...]

Starts `opa run --server` once per scenario on a free loopback port (with the scenario's files,
positional paths and flags), sends its requests in order and writes expected/SCENARIO.json: for
each request, the status, the recorded headers and the body exactly as sent (decompressed when
OPA gzipped it). Runs a given binary; it does not build OPA.
"""

import argparse
import json
import os
import shutil
import sys

import replay_lib as lib

OPA_TEMPLATE = "{opa} run --server --disable-telemetry --addr 127.0.0.1:{port} {flags} {paths}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opa", required=True, help="the reference OPA binary (1.7.1)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory (server logs)")
    ap.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    a = ap.parse_args()

    opa = os.path.abspath(a.opa)
    template = OPA_TEMPLATE.replace("{opa}", opa)
    names = a.scenarios or lib.scenario_names()
    os.makedirs(lib.EXPECTED_DIR, exist_ok=True)
    workdir = lib.new_workdir()
    failed = False
    total = 0
    for name in names:
        sc = lib.load_scenario(name)
        responses = []

        def keep(req, got):
            rec = {"id": req["id"]}
            rec.update(got)
            responses.append(rec)

        err = lib.run_scenario(template, sc, workdir, keep)
        if err:
            print(f"{name}: {err}", file=sys.stderr)
            failed = True
            continue
        if any("error" in r for r in responses):
            for r in responses:
                if "error" in r:
                    print(f"{name}/{r['id']}: {r['error']}", file=sys.stderr)
            failed = True
        out = {"recorded_with": "opa run --server (OPA 1.7.1)", "responses": responses}
        path = os.path.join(lib.EXPECTED_DIR, name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, ensure_ascii=False)
            f.write("\n")
        total += len(responses)
        print(f"{name}: {len(responses)} responses recorded")
    print(f"{total} responses in {len(names)} scenario(s)")
    if a.keep:
        print(f"scratch: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
