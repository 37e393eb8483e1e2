#!/usr/bin/env python3
"""Shrinks a case on which gavel and OPA differ to a small one that differs in the same way.

    minimize.py --opa BIN --gavel BIN [--mode plain|strict] [--style classic|exprs|policy|mutate] [--out FILE] SEED | ID | FILE.json

The case is a generated seed, a recorded id (cases/*.jsonl) or a JSON file (as `explore --save`
writes). "The same way" is the same difference class (engines.signature: e.g. `value`,
`gavel-error:eval_conflict_error`, `codes:A->B`). Reductions, repeated until none applies:
drop a rule (a block of lines between blank lines), drop a body line, drop a `;`-separated
expression, replace a bracketed or quoted sub-term by a small literal, drop or null keys of the
input and data documents, drop the input, query one rule instead of the package.
"""

import argparse
import json
import os
import re
import sys

import difftest
import engines
import generator


class Oracle:
    def __init__(self, opa, gavel, mode, target):
        self.opa, self.gavel, self.mode, self.target = opa, gavel, mode, target
        self.tries = 0

    def outcome(self, case):
        return engines.run(self.opa, case, self.mode), engines.run(self.gavel, case, self.mode)

    def differs(self, case):
        self.tries += 1
        expected, actual = self.outcome(case)
        if engines.verdict(expected)[0] in ("timeout", "crash"):
            return False
        same, _ = engines.compare(expected, actual)
        return not same and engines.signature(expected, actual) == self.target


# ---- candidate reductions ------------------------------------------------------------------
def _blocks(text):
    return re.split(r"\n\s*\n", text)


def _module_candidates(text):
    blocks = _blocks(text)
    for i in range(1, len(blocks)):  # keep the package line's block
        yield "\n\n".join(blocks[:i] + blocks[i + 1:])
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("\t"):
            yield "\n".join(lines[:i] + lines[i + 1:])
    for m in re.finditer(r"; ", text):
        # drop the expression after this separator (up to the next ; or closing brace at its depth)
        start = m.start()
        depth, j = 0, m.end()
        while j < len(text):
            c = text[j]
            if c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif c == ";" and depth == 0:
                break
            j += 1
        yield text[:start] + text[j:]
    for m in re.finditer(r" else := [^\n]*?(?= else|\n|$)", text):
        yield text[:m.start()] + text[m.end():]
    for start, end in _subterms(text):
        for small in ("1", '"a"', "[]", "{}", "true"):
            if text[start:end] != small:
                yield text[:start] + small + text[end:]


def _subterms(text):
    """Spans of bracketed groups and string literals, largest first."""
    spans = []
    stack = []
    quoted = escaped = False
    qstart = 0
    for i, c in enumerate(text):
        if quoted:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                quoted = False
                if i - qstart > 3:
                    spans.append((qstart, i + 1))
            continue
        if c == '"':
            quoted, qstart = True, i
        elif c in "([{":
            stack.append(i)
        elif c in ")]}" and stack:
            s = stack.pop()
            if i - s > 2 and text[s - 1:s] not in ("", "\n") and not text[:s].rstrip().endswith(" if"):
                spans.append((s, i + 1))
    spans.sort(key=lambda se: se[0] - se[1])
    return spans


def _json_candidates(text):
    try:
        doc = json.loads(text, parse_int=lambda s: generator.RawNumber(s), parse_float=lambda s: generator.RawNumber(s))
    except ValueError:
        return

    def walk(v, path):
        yield path, v
        if isinstance(v, dict):
            for k, x in v.items():
                yield from walk(x, path + [k])
        elif isinstance(v, list):
            for i, x in enumerate(v):
                yield from walk(x, path + [i])

    for path, _ in list(walk(doc, [])):
        if not path:
            continue
        for action in ("drop", "null"):
            copy = json.loads(text, parse_int=lambda s: generator.RawNumber(s), parse_float=lambda s: generator.RawNumber(s))
            parent = copy
            for p in path[:-1]:
                parent = parent[p]
            if action == "drop":
                del parent[path[-1]]
            elif parent[path[-1]] is None:
                continue
            else:
                parent[path[-1]] = None
            yield generator.dump_json(copy)


def candidates(case):
    for name, text in case["modules"].items():
        if len(case["modules"]) > 1:
            yield dict(case, modules={k: v for k, v in case["modules"].items() if k != name})
        for t in _module_candidates(text):
            yield dict(case, modules=dict(case["modules"], **{name: t}))
    if "input" in case:
        yield {k: v for k, v in case.items() if k != "input"}
        for t in _json_candidates(case["input"]):
            yield dict(case, input=t)
    for t in _json_candidates(case["data"]):
        yield dict(case, data=t)
    if case["query"] == "data.p":
        for name in sorted(set(re.findall(r"^(\w+)", case["modules"].get("p.rego", ""), re.M))):
            if name not in ("package", "import", "default"):
                yield dict(case, query="data.p." + name)


def size(case):
    return sum(len(t) for t in case["modules"].values()) + len(case["data"]) + len(case.get("input", "")) + len(case["query"])


def minimize(case, oracle):
    best = case
    progress = True
    while progress:
        progress = False
        for cand in candidates(best):
            if size(cand) < size(best) and oracle.differs(cand):
                best = cand
                progress = True
                break
    return best


def load(target, style="classic"):
    if os.path.exists(target):
        with open(target, encoding="utf-8") as f:
            return json.load(f)
    if target.isdigit():
        return difftest.generate(int(target), style)
    for c in difftest.load_cases():
        if c["id"] == target.split("/")[0]:
            return c
    raise SystemExit("no case %s" % target)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--opa", required=True)
    ap.add_argument("--gavel", required=True)
    ap.add_argument("--mode", choices=engines.MODES)
    ap.add_argument("--out")
    ap.add_argument("--style", choices=sorted(difftest.STYLES), default="classic", help="the generator of a SEED")
    ap.add_argument("case")
    args = ap.parse_args()
    case = load(args.case, args.style)
    mode = args.mode or case.get("mode") or ("strict" if args.case.endswith("/strict") else "plain")
    case = {k: v for k, v in case.items() if k in ("id", "seed", "modules", "data", "input", "query")}
    probe = Oracle(args.opa, args.gavel, mode, None)
    expected, actual = probe.outcome(case)
    same, _ = engines.compare(expected, actual)
    if same:
        print("the engines agree on this case (%s): nothing to minimize" % mode)
        return 1
    target = engines.signature(expected, actual)
    oracle = Oracle(args.opa, args.gavel, mode, target)
    small = minimize(case, oracle)
    expected, actual = oracle.outcome(small)
    print("# class %s, mode %s, %d evaluations" % (target, mode, oracle.tries))
    for name, text in small["modules"].items():
        print("# ---- %s" % name)
        print(text.rstrip())
    print("# data: " + small["data"])
    print("# input: " + small.get("input", "(none)"))
    print("# query: " + small["query"])
    print("# opa:   " + engines.describe(expected, 1000))
    print("# gavel: " + engines.describe(actual, 1000))
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(dict(small, mode=mode), f, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
