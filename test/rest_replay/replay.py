#!/usr/bin/env python3
"""Replays the REST corpus against a server and compares its answers with OPA's recorded ones.

    replay.py --server-cmd 'BIN run --server --addr 127.0.0.1:{port} {flags} {paths}' [options] [SCENARIO...]

The command is a template, split like a shell command; per scenario it gets:
  {port}   a free loopback port the server must listen on (plain HTTP)
  {dir}    the scratch directory holding the scenario's files (also the working directory)
  {paths}  (a whole word) the scenario's positional paths, relative to {dir}, as `opa run` takes them
  {flags}  (a whole word) the scenario's flags (--set, -b, --authentication, ...)
For today's `gavel serve`:
  --server-cmd 'BIN serve --insecure-http --addr 127.0.0.1:0 --rest-addr 127.0.0.1:{port} --diagnostic-addr 127.0.0.1:0 --policies .'

A request passes when the status (and Location/Allow headers) are equal and the bodies are equal:
as JSON after normalising the non-deterministic values (replay_lib.normalise_rule), or byte for
byte when OPA's body is not JSON; `compare: status` requests (GET /) compare the status alone and
`compare: metric_names` ones (GET /metrics) the Prometheus family names. The second score,
"byte-identical", also wants the same bytes (layout, key order, trailing newline) and the same
Content-Type and Content-Encoding.

Baseline (as test/conformance/passing.txt): --baseline FILE fails (exit 1) when a listed request
fails; --update-baseline FILE adds the passing ones; --list-passing FILE writes the passing ids.
--skip-unless-serves exits 77 (skipped, for meson) when the server command does not start.
"""

import argparse
import collections
import os
import shutil
import sys

import replay_lib as lib


def read_ids(path):
    ids = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                ids.append(line)
    return ids


def write_ids(path, ids, header):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(header)
        for i in sorted(ids):
            f.write(i + "\n")
    os.replace(tmp, path)


BASELINE_HEADER = ("# REST replay requests gavel answers as OPA 1.7.1 does (test/rest_replay/replay.py).\n"
                   "# Grows with: replay.py --server-cmd ... --update-baseline test/rest_replay/passing.txt\n")


def server_starts(template, workdir):
    """True when the command starts a server that listens, with an empty scenario."""
    sc = {"name": "_probe", "files": {}, "paths": [], "flags": [], "requests": []}
    srv = lib.Server(template, sc, workdir, start_timeout=15.0)
    try:
        return srv.wait_ready(), srv.log_tail(5)
    finally:
        srv.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server-cmd", required=True, help="server command template (see above)")
    ap.add_argument("--baseline", help="fail when a request listed in this file fails")
    ap.add_argument("--update-baseline", help="add the passing requests to this file")
    ap.add_argument("--allow-shrink", action="store_true",
                    help="with --update-baseline: drop the listed requests that fail (say why in the commit)")
    ap.add_argument("--list-passing", help="write the ids of the passing requests to this file")
    ap.add_argument("--skip-unless-serves", action="store_true",
                    help="exit 77 (meson's skip) when the server command does not start a server")
    ap.add_argument("-q", "--quiet", action="store_true", help="print failures and totals only")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory (server logs)")
    ap.add_argument("--filter", help="only requests whose id contains this")
    ap.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    a = ap.parse_args()

    workdir = lib.new_workdir()
    try:
        if a.skip_unless_serves:
            ok, tail = server_starts(a.server_cmd, workdir)
            if not ok:
                print("SKIP: the server command does not start a server listening on {port}:")
                print("  " + a.server_cmd)
                if tail:
                    print("  " + tail.replace("\n", "\n  "))
                return 77
        return run(a, workdir)
    finally:
        if a.keep:
            print(f"scratch: {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


def run(a, workdir):
    names = a.scenarios or lib.scenario_names()
    passing, strict_passing, failing = set(), set(), []
    total = 0
    by_scenario = collections.OrderedDict()
    for name in names:
        sc = lib.load_scenario(name)
        exp = lib.load_expected(name)
        if exp is None:
            print(f"{name}: no recording (run record.py)", file=sys.stderr)
            return 2
        expected = {r["id"]: r for r in exp["responses"]}
        missing = [r["id"] for r in sc["requests"] if r["id"] not in expected]
        if missing:
            print(f"{name}: requests without a recording: {', '.join(missing)} (run record.py)", file=sys.stderr)
            return 2
        counts = [0, 0, 0]
        by_scenario[name] = counts

        def check(req, got):
            rid = f"{name}/{req['id']}"
            if a.filter and a.filter not in rid:
                return
            ok, strict, why = lib.compare(req, expected[req["id"]], got)
            counts[0] += 1
            if ok:
                counts[1] += 1
                passing.add(rid)
                if strict:
                    counts[2] += 1
                    strict_passing.add(rid)
                if not a.quiet:
                    print(f"PASS {rid}" + ("" if strict else f"  (not byte-identical: {why})"))
            else:
                failing.append(rid)
                print(f"FAIL {rid} [{req['method']} {req['path']}]: {why}")

        err = lib.run_scenario(a.server_cmd, sc, workdir, check)
        if err:
            for req in sc["requests"]:
                rid = f"{name}/{req['id']}"
                if a.filter and a.filter not in rid:
                    continue
                counts[0] += 1
                failing.append(rid)
            print(f"FAIL {name}: {err}")
        total += counts[0]

    print()
    for name, (n, p, s) in by_scenario.items():
        print(f"  {name:32} {p:4}/{n:<4} passed, {s:4} byte-identical")
    pct = 100.0 * len(passing) / total if total else 0.0
    spct = 100.0 * len(strict_passing) / total if total else 0.0
    print(f"passed: {len(passing)}/{total} ({pct:.1f}%); byte-identical: {len(strict_passing)}/{total} ({spct:.1f}%)")

    if a.list_passing:
        write_ids(a.list_passing, passing, "")
    status = 0
    if a.baseline:
        listed = read_ids(a.baseline)
        ran = {f"{n}/{r['id']}" for n in names for r in lib.load_scenario(n)["requests"]}
        regressed = [i for i in listed if i in ran and i not in passing]
        unknown = [i for i in listed if i not in ran]
        newly = sorted(passing - set(listed))
        if regressed:
            print(f"baseline: {len(regressed)} listed request(s) now fail:")
            for i in regressed:
                print(f"  {i}")
            status = 1
        if unknown and not a.scenarios and not a.filter:
            print(f"baseline: {len(unknown)} listed request(s) are not in the corpus:")
            for i in unknown:
                print(f"  {i}")
            status = 1
        if newly:
            print(f"baseline: {len(newly)} request(s) pass but are not listed; record them with:")
            print(f"  replay.py --server-cmd '...' --update-baseline {a.baseline}")
        if not regressed:
            print(f"baseline: all {len([i for i in listed if i in ran])} listed request(s) that ran pass")
        # The test's own count for scripts/summarize-tests.py: the listed requests are the cases
        # (a FAIL line above an unlisted request is a known difference, not a failed case).
        print(f"{len([i for i in listed if i in ran and i in passing])} passed, {len(regressed)} failed")
    if a.update_baseline:
        listed = set(read_ids(a.update_baseline)) if os.path.exists(a.update_baseline) else set()
        failed = set(failing)
        dropped = sorted(i for i in listed if i in failed)
        if dropped and not a.allow_shrink:
            print(f"baseline: {len(dropped)} listed request(s) fail; they stay listed (fix them, or --allow-shrink):")
            for i in dropped:
                print(f"  {i}")
            status = 1
            dropped = []
        added = passing - listed
        write_ids(a.update_baseline, (listed - set(dropped)) | passing, BASELINE_HEADER)
        print(f"baseline: {a.update_baseline}: {len(added)} added, {len(dropped)} dropped")
    return status


if __name__ == "__main__":
    sys.exit(main())
