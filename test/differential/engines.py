"""Running a case through `eval` of an engine (OPA or gavel) and comparing the outcomes.

A case is a dict (see generator.py): modules (file name -> text), data (JSON text), input (JSON
text, optional), query. It is written to a scratch directory and evaluated there with relative
paths, so that messages name files as `p.rego:3`:

    ENGINE eval --format json -d p.rego [-d lib.rego] -d data.json [-i input.json]
                [--strict-builtin-errors] QUERY

An outcome is {"exit": status, "output": the JSON printed (or the raw text when it is not JSON),
"stderr": what print() wrote, only when the program calls print}.
"""

import json
import os
import subprocess
import tempfile

TIMEOUT_SECONDS = 20
MODES = ("plain", "strict")


def write_case(case, directory):
    paths = []
    for name, text in sorted(case["modules"].items()):
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write(text)
        paths.append(name)
    with open(os.path.join(directory, "data.json"), "w", encoding="utf-8") as f:
        f.write(case["data"])
    paths.append("data.json")
    has_input = "input" in case
    if has_input:
        with open(os.path.join(directory, "input.json"), "w", encoding="utf-8") as f:
            f.write(case["input"])
    return paths, has_input


def uses_print(case):
    return "print(" in case["query"] or any("print(" in t for t in case["modules"].values())


def run(binary, case, mode, extra_args=()):
    """Evaluates the case with one engine; mode is "plain" or "strict"."""
    with tempfile.TemporaryDirectory(prefix="difftest-") as d:
        paths, has_input = write_case(case, d)
        args = [os.path.abspath(binary) if os.sep in binary else binary, "eval", "--format", "json"]
        for p in paths:
            args += ["-d", p]
        if has_input:
            args += ["-i", "input.json"]
        if mode == "strict":
            args.append("--strict-builtin-errors")
        args += list(extra_args)
        args.append(case["query"])
        try:
            proc = subprocess.run(args, cwd=d, capture_output=True, timeout=TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return {"exit": "timeout", "output": ""}
    text = proc.stdout.decode("utf-8", "replace")
    try:
        output = json.loads(text)
    except ValueError:
        output = text
    outcome = {"exit": proc.returncode, "output": output}
    if uses_print(case):
        outcome["stderr"] = proc.stderr.decode("utf-8", "replace")
    return outcome


# ---- comparison ----------------------------------------------------------------------------
def _exact_numbers(text):
    """Parses JSON keeping each number's spelling (1.0 and 1 differ, as they print differently)."""
    return json.loads(text, parse_int=lambda s: ("#n", s), parse_float=lambda s: ("#n", s),
                      parse_constant=lambda s: ("#n", s))


def _reparse(output):
    if isinstance(output, (dict, list)):
        return _exact_numbers(json.dumps(output))
    return output


def verdict(outcome):
    """What the acceptance compares: the result list, or the sorted error codes, or a crash."""
    if outcome["exit"] == "timeout":
        return ("timeout",)
    out = outcome["output"]
    if isinstance(out, dict) and "errors" in out:
        return ("errors", tuple(sorted(e.get("code", "") for e in out["errors"])))
    if isinstance(out, dict) and outcome["exit"] == 0:
        return ("result", json.dumps(_reparse(out.get("result", [])), sort_keys=True, ensure_ascii=False))
    return ("crash", outcome["exit"], out if isinstance(out, str) else json.dumps(out))


def exact(outcome):
    """Everything: also messages, locations and print output."""
    out = outcome["output"]
    errs = None
    if isinstance(out, dict) and "errors" in out:
        errs = json.dumps(sorted((json.dumps(e, sort_keys=True) for e in out["errors"])))
    return (verdict(outcome), errs, outcome.get("stderr"))


def compare(expected, actual):
    """Returns (same verdict, same in every detail)."""
    return verdict(expected) == verdict(actual), exact(expected) == exact(actual)


def describe(outcome, limit=300):
    v = verdict(outcome)
    if v[0] == "errors":
        msgs = ["%s: %s" % (e.get("code"), e.get("message")) for e in outcome["output"]["errors"]]
        text = "errors " + " | ".join(msgs)
    elif v[0] == "result":
        text = "result " + v[1]
    else:
        text = " ".join(str(x) for x in v)
    if outcome.get("stderr"):
        text += "  [stderr: %s]" % outcome["stderr"].strip().replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + "..."


def signature(expected, actual):
    """A short class name of a difference, to group and rank differences."""
    ve, va = verdict(expected), verdict(actual)
    if va[0] in ("crash", "timeout"):
        return "gavel-%s" % va[0]
    if ve[0] == "errors" and va[0] == "errors":
        if ve == va:
            return "detail:errors"
        return "codes:%s->%s" % ("+".join(ve[1]), "+".join(va[1]))
    if ve[0] == "errors":
        return "opa-error:%s" % "+".join(ve[1])
    if va[0] == "errors":
        return "gavel-error:%s" % "+".join(va[1])
    if ve == va:
        return "detail:print" if expected.get("stderr") != actual.get("stderr") else "detail"
    return "value"
