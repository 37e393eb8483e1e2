#!/usr/bin/env python3
"""Differential testing of gavel against OPA on generated programs.

    difftest.py record  --opa BIN --seeds A:B --out cases/NAME.jsonl [--style classic|exprs|policy|mutate]
    difftest.py replay  --gavel BIN [--baseline passing.txt | --update-baseline passing.txt] [ID...]
    difftest.py explore --opa BIN --gavel BIN --seeds A:B [--style classic|exprs|policy|mutate] [--save DIR] [--mode plain|strict]
    difftest.py show    ID|SEED [--style classic|exprs|policy|mutate]

--style picks the generator of new cases: classic (generator.py, ids v<N>-SEED), exprs
(generator_exprs.py, deep expressions and compositions, ids e<N>-SEED), policy
(generator_policy.py, Kubernetes/Terraform/RBAC/HTTP policies over realistic documents, ids q<N>-SEED)
or mutate (generator_mutate.py, a program of the others with one random edit, ids m<N>-SEED).

record   generates the cases of seeds A..B-1 (in the --style) and stores each with OPA's outcomes in
         both modes (plain `eval` and `--strict-builtin-errors`) as one JSON line.
replay   evaluates the recorded cases with gavel and compares: a case-mode passes when the verdict
         is the same (the same result, or the same sorted error codes). The ids are CASE and
         CASE/strict. --baseline fails (exit 1) when a listed id fails; --update-baseline adds the
         passing ids (--allow-shrink also drops the failing ones: say why in the commit).
explore  generates and runs both engines live, then ranks the differences by class.
show     prints a recorded case (by id) or a generated one (by seed).
"""

import argparse
import collections
import concurrent.futures
import glob
import json
import os
import sys

import engines
import generator
import generator_exprs
import generator_mutate
import generator_policy

# Generation styles: generator.py's statement-heavy programs, generator_exprs.py's deep expressions,
# generator_policy.py's programs shaped like deployed policies over realistic documents.
STYLES = {"classic": generator.generate, "exprs": generator_exprs.generate, "policy": generator_policy.generate,
          "mutate": generator_mutate.generate}


def generate(seed, style="classic"):
    return STYLES[style](seed)

HERE = os.path.dirname(os.path.abspath(__file__))
CASES_GLOB = os.path.join(HERE, "cases", "*.jsonl")


def parse_seeds(text):
    a, _, b = text.partition(":")
    return range(int(a), int(b))


def workers():
    return max(1, os.cpu_count() or 1)


def load_cases(pattern=CASES_GLOB):
    cases = []
    for path in sorted(glob.glob(pattern)):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    cases.append(json.loads(line))
    return cases


def expected_outcome(case, mode):
    exp = case["opa"][mode]
    return case["opa"]["plain"] if exp == "same" else exp


# ---- record ------------------------------------------------------------------------------
def cmd_record(args):
    seeds = parse_seeds(args.seeds)

    def one(seed):
        case = generate(seed, args.style)
        plain = engines.run(args.opa, case, "plain")
        strict = engines.run(args.opa, case, "strict")
        case["opa"] = {"plain": plain, "strict": "same" if strict == plain else strict}
        return case

    with concurrent.futures.ThreadPoolExecutor(workers()) as pool:
        cases = list(pool.map(one, seeds))
    skipped = 0
    with open(args.out, "w", encoding="utf-8") as f:
        for case in cases:
            # OPA itself must give an answer: its timeouts and crashes are no contract.
            if any(engines.verdict(expected_outcome(case, m))[0] in ("timeout", "crash") for m in engines.MODES):
                skipped += 1
                continue
            f.write(json.dumps(case, ensure_ascii=False, sort_keys=True) + "\n")
    print("recorded %d cases (%d skipped: OPA timed out or crashed) into %s" % (len(cases) - skipped, skipped, args.out))


# ---- replay ------------------------------------------------------------------------------
def read_ids(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [l.strip() for l in f if l.strip() and not l.startswith("#")]


def write_ids(path, ids):
    header = ("# Recorded differential cases (cases/*.jsonl) gavel decides as OPA did: CASE is plain eval,\n"
              "# CASE/strict with --strict-builtin-errors. The meson test fails when one of them stops passing.\n")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(header)
        for i in sorted(ids):
            f.write(i + "\n")
    os.replace(path + ".tmp", path)


def case_mode_id(case, mode):
    return case["id"] if mode == "plain" else case["id"] + "/strict"


def cmd_replay(args):
    cases = load_cases()
    jobs = [(c, m) for c in cases for m in engines.MODES]
    if args.ids:
        jobs = [(c, m) for c, m in jobs if any(i == case_mode_id(c, m) or i == c["id"] for i in args.ids)]

    def compile_time(case):
        """OPA's answer is the same compile errors in both modes: the mode cannot matter."""
        exp = engines.verdict(case["opa"]["plain"])
        return case["opa"]["strict"] == "same" and exp[0] == "errors" and all(c.startswith("rego_") for c in exp[1])

    def one(job):
        case, mode = job
        if mode == "strict" and compile_time(case):
            return None  # judged with the plain run
        actual = engines.run(args.gavel, case, mode)
        expected = expected_outcome(case, mode)
        same, same_exact = engines.compare(expected, actual)
        out = [(case_mode_id(case, mode), same, same_exact, expected, actual)]
        if mode == "plain" and compile_time(case) and (not args.ids or case_mode_id(case, "strict") in args.ids
                                                       or case["id"] in args.ids):
            out.append((case_mode_id(case, "strict"), same, same_exact, expected, actual))
        return out

    with concurrent.futures.ThreadPoolExecutor(2 * workers()) as pool:
        results = [r for rs in pool.map(one, jobs) if rs for r in rs]
    passing = set()
    per_mode = collections.Counter()
    exact_count = collections.Counter()
    classes = collections.Counter()
    for cid, same, same_exact, expected, actual in results:
        mode = "strict" if cid.endswith("/strict") else "plain"
        per_mode[mode, "all"] += 1
        if same:
            passing.add(cid)
            per_mode[mode, "pass"] += 1
        if same_exact:
            exact_count[mode] += 1
        if not same or (args.verbose and not same_exact):
            classes[engines.signature(expected, actual)] += 1
            if not args.quiet:
                print("FAIL %s" % cid if not same else "DETAIL %s" % cid)
                print("   opa:   " + engines.describe(expected))
                print("   gavel: " + engines.describe(actual))
    for mode in engines.MODES:
        n = per_mode[mode, "all"]
        if n:
            print("%-6s %d/%d same verdict (%.2f%%), %d identical in every detail" %
                  (mode, per_mode[mode, "pass"], n, 100.0 * per_mode[mode, "pass"] / n, exact_count[mode]))
    for cls, n in classes.most_common():
        print("  %5d  %s" % (n, cls))
    status = 0
    if args.baseline:
        listed = set(read_ids(args.baseline))
        lost = sorted(i for i in listed if i not in passing and any(i == r[0] for r in results))
        for i in lost:
            print("REGRESSION %s (listed in %s)" % (i, os.path.basename(args.baseline)))
        status = 1 if lost else 0
    if args.update_baseline:
        listed = set(read_ids(args.update_baseline))
        ran = {r[0] for r in results}
        if args.allow_shrink:
            listed = {i for i in listed if i not in ran or i in passing}
        write_ids(args.update_baseline, listed | passing)
    return status


# ---- explore -----------------------------------------------------------------------------
def cmd_explore(args):
    seeds = parse_seeds(args.seeds)
    modes = [args.mode] if args.mode else list(engines.MODES)

    def one(seed):
        case = generate(seed, args.style)
        out = []
        for mode in modes:
            expected = engines.run(args.opa, case, mode)
            if engines.verdict(expected)[0] in ("timeout", "crash"):
                continue
            actual = engines.run(args.gavel, case, mode)
            out.append((case, mode, expected, actual) + engines.compare(expected, actual))
        return out

    with concurrent.futures.ThreadPoolExecutor(workers()) as pool:
        results = [r for rs in pool.map(one, seeds) for r in rs]
    classes = collections.defaultdict(list)
    counts = collections.Counter()
    for case, mode, expected, actual, same, same_exact in results:
        counts[mode, "all"] += 1
        counts[mode, "pass"] += same
        counts[mode, "exact"] += same_exact
        if not same or (args.details and not same_exact):
            classes[engines.signature(expected, actual)].append((case, mode, expected, actual))
    for mode in modes:
        n = counts[mode, "all"]
        if n:
            print("%-6s %d/%d same verdict (%.2f%%), %d identical in every detail" %
                  (mode, counts[mode, "pass"], n, 100.0 * counts[mode, "pass"] / n, counts[mode, "exact"]))
    for cls, items in sorted(classes.items(), key=lambda kv: -len(kv[1])):
        print("%5d  %s   e.g. %s" % (len(items), cls, ", ".join(
            case_mode_id(c, m) for c, m, _, _ in items[:6])))
        for c, m, e, a in items[:args.examples]:
            print("         %s  opa:   %s" % (case_mode_id(c, m), engines.describe(e, 200)))
            print("         %s  gavel: %s" % (" " * len(case_mode_id(c, m)), engines.describe(a, 200)))
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        for items in classes.values():
            for c, m, e, a in items:
                c = dict(c, opa={"plain": e} if m == "plain" else {"plain": "?", "strict": e}, mode=m)
                with open(os.path.join(args.save, case_mode_id(c, m).replace("/", "-") + ".json"), "w") as f:
                    json.dump(c, f, ensure_ascii=False, indent=1)
    return 0


def cmd_show(args):
    target = args.id
    case = None
    if target.isdigit():
        case = generate(int(target), args.style)
    else:
        for c in load_cases():
            if c["id"] == target.split("/")[0]:
                case = c
    if case is None:
        print("no case %s" % target)
        return 1
    for name, text in case["modules"].items():
        print("# ---- %s" % name)
        print(text)
    print("# data: " + case["data"])
    print("# input: " + case.get("input", "(none)"))
    print("# query: " + case["query"])
    if "opa" in case:
        for m in engines.MODES:
            print("# opa %s: %s" % (m, engines.describe(expected_outcome(case, m), 2000)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("--opa", required=True)
    r.add_argument("--seeds", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--style", choices=sorted(STYLES), default="classic")
    p = sub.add_parser("replay")
    p.add_argument("--gavel", required=True)
    p.add_argument("--baseline")
    p.add_argument("--update-baseline")
    p.add_argument("--allow-shrink", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("-v", "--verbose", action="store_true", help="also list differences in messages and prints")
    p.add_argument("ids", nargs="*")
    e = sub.add_parser("explore")
    e.add_argument("--opa", required=True)
    e.add_argument("--gavel", required=True)
    e.add_argument("--seeds", required=True)
    e.add_argument("--style", choices=sorted(STYLES), default="classic")
    e.add_argument("--mode", choices=engines.MODES)
    e.add_argument("--save")
    e.add_argument("--examples", type=int, default=2)
    e.add_argument("--details", action="store_true", help="also count differences in messages and prints")
    s = sub.add_parser("show")
    s.add_argument("id")
    s.add_argument("--style", choices=sorted(STYLES), default="classic")
    args = ap.parse_args()
    return {"record": cmd_record, "replay": cmd_replay, "explore": cmd_explore, "show": cmd_show}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
