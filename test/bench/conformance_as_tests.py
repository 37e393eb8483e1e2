#!/usr/bin/env python3
"""Turns OPA's v1 conformance cases into a tree of `gavel test` fixtures (not
part of the test suite: a workload for timing the test runner at scale).

Each case of the form `query: data.a.b = x` with a `want_result` becomes a
directory c<N>/ holding the case's modules, its data (c<N>/data.json, so it
lands at data.c<N>) and one test rule comparing the rule's value, JSON round
tripped so that sets compare as the sorted arrays the case lists, with the
expected value. Packages and `data` references move under data.c<N>, so all
cases load together in one run.

    test/bench/conformance_as_tests.py OUT_DIR [CONFORMANCE_DIR]
    time build/cli/gavel test OUT_DIR

The rewrite is textual; a case whose modules use `data` in other ways fails
its test (the runner's pass count says how many).
"""
import json
import pathlib
import re
import sys

import yaml

SIMPLE_QUERY = re.compile(r"data((?:\.\w+)+) = x")


def rewrite(module: str, prefix: str) -> str:
    module = re.sub(r"^(\s*)package\s+", rf"\1package {prefix}.", module, count=1, flags=re.M)
    module = re.sub(r"\bdata\.", f"data.{prefix}.", module)
    return re.sub(r"\bdata\[", f"data.{prefix}[", module)


def main() -> int:
    out = pathlib.Path(sys.argv[1])
    root = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else
                        pathlib.Path(__file__).resolve().parents[3] / "shared/conformance/opa")
    written = 0
    for path in sorted((root / "v1").rglob("*.yaml")):
        for case in yaml.safe_load(path.read_text())["cases"]:
            match = SIMPLE_QUERY.fullmatch(case.get("query", "").strip())
            want = case.get("want_result")
            if not match or not isinstance(want, list) or len(want) != 1 or "input_term" in case \
                    or case.get("experimental_keywords") \
                    or any("test.sleep" in m for m in case.get("modules") or []):  # a builtin of OPA's harness
                continue
            prefix = f"c{written}"
            case_dir = out / prefix
            case_dir.mkdir(parents=True, exist_ok=True)
            for i, module in enumerate(case.get("modules") or []):
                (case_dir / f"m{i}.rego").write_text(rewrite(module, prefix))
            if case.get("data") is not None:
                (case_dir / "data.json").write_text(json.dumps(case["data"]))
            with_input = f" with input as {json.dumps(case['input'])}" if "input" in case else ""
            (case_dir / "case_test.rego").write_text(
                f"# {path.relative_to(root)}: {case.get('note', '')}\n"
                f"package {prefix}.conformance_test\n\n"
                f"test_case if {{\n"
                f"\tjson.unmarshal(json.marshal(data.{prefix}{match.group(1)})) == {json.dumps(want[0]['x'])}{with_input}\n"
                f"}}\n")
            written += 1
    print(f"{written} cases written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
