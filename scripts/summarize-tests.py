#!/usr/bin/env python3
"""Adds up the test cases of meson test runs (doctest case counts, e2e ok/FAIL
lines, conformance summaries) and prints one closing line: 'N passed, N failed'."""
import json
import re
import sys

passed = failed = 0
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            run = json.loads(line)
            out = run.get("stdout", "") or ""
            doctest = re.search(r"\[doctest\] test cases:\s*(\d+) \|\s*(\d+) passed \|\s*(\d+) failed", out)
            plain = re.findall(r"^(?:\w+: )?(\d+) passed, (\d+) failed", out, re.M)
            e2e_ok = len(re.findall(r"^ok   ", out, re.M))
            e2e_fail = len(re.findall(r"^FAIL ", out, re.M))
            ok = run.get("result") in ("OK", "EXPECTEDFAIL", "SKIP")
            if doctest:
                p, f = int(doctest.group(2)), int(doctest.group(3))
            elif plain:
                p, f = int(plain[-1][0]), int(plain[-1][1])
            elif e2e_ok or e2e_fail:
                p, f = e2e_ok, e2e_fail
            else:
                p, f = (1, 0) if ok else (0, 1)
            # A run that failed after reporting no failures (a crash, a leak report) still fails.
            if not ok and f == 0:
                f = 1
            passed += p
            failed += f
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
