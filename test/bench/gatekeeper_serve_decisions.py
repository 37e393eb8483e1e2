#!/usr/bin/env python3
"""Serve decisions against gator's expectations (not part of the test suite).

For every suite below the paths, every test is served by `gavel serve
--gatekeeper` (its template and constraint in a directory of their own, the
constraint's enforcementAction set to deny so that every violation is a line
of the denial), and every case's object is POSTed as an AdmissionReview
(CREATE; an AdmissionReview object as it is) after its inventory was PUT into
data.inventory through the REST API. The denial's lines, without their
"[constraint] " prefix, must satisfy the case's assertions as gator checks
them. Prints each mismatch and the figures.

    test/bench/gatekeeper_serve_decisions.py GAVEL PATH...   (PATH: a library checkout's library/)
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import yaml


def load_docs(path):
    """gator's reader: split on \\n---, skip empty documents."""
    with open(path) as f:
        text = f.read()
    out = []
    for chunk in text.split("\n---"):
        doc = yaml.safe_load(chunk) if chunk.strip() else None
        if isinstance(doc, dict):
            out.append(doc)
    return out


def gvk(obj):
    api = obj.get("apiVersion", "")
    group, _, version = api.rpartition("/")
    return group, version, obj.get("kind", "")


def inventory_tree(objects):
    tree = {}
    for o in objects:
        meta = o.get("metadata", {})
        ns, name = meta.get("namespace"), meta.get("name", "")
        path = (["namespace", ns] if ns else ["cluster"]) + [o.get("apiVersion", ""), o.get("kind", ""), name]
        node = tree
        for p in path[:-1]:
            node = node.setdefault(p, {})
        node[path[-1]] = o
    return tree


def review_of(obj):
    if obj.get("kind") == "AdmissionReview" and gvk(obj)[0] == "admission.k8s.io":
        r = json.loads(json.dumps(obj, default=str))
        r.setdefault("request", {}).setdefault("uid", "bench")
        return r
    group, version, kind = gvk(obj)
    meta = obj.get("metadata", {})
    request = {"uid": "bench", "kind": {"group": group, "version": version, "kind": kind},
               "resource": {"group": group, "version": version, "resource": kind.lower() + "s"},
               "operation": "CREATE", "object": obj}
    if meta.get("name"):
        request["name"] = meta["name"]
    if meta.get("namespace"):
        request["namespace"] = meta["namespace"]
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


def check(assertion, messages):
    """gator's Assertion.Run; None when satisfied."""
    want = assertion.get("violations", "yes")
    if want is True:  # PyYAML reads yes/no as booleans; gator's go-yaml v3 as strings
        want = "yes"
    elif want is False:
        want = "no"
    pattern = assertion.get("message")
    matching = sum(1 for m in messages if pattern is None or re.search(pattern, m))
    if isinstance(want, int):
        ok = matching == want
    elif want == "yes":
        ok = matching > 0
    elif want == "no":
        ok = matching == 0
    else:
        return "invalid assertion %r" % want
    return None if ok else "got %d matching %r, want %s; messages %s" % (matching, pattern, want, messages)


def post(url, body, method="POST"):
    req = urllib.request.Request(url, data=json.dumps(body, default=str).encode(), method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        data = r.read()
        return json.loads(data) if data else None


class Server:
    def __init__(self, gavel, directory, work):
        self.log = open(os.path.join(work, "serve.log"), "w+")
        self.proc = subprocess.Popen([gavel, "serve", "--gatekeeper", directory, "--insecure-http",
                                      "--addr", "127.0.0.1:0", "--rest-addr", "127.0.0.1:0",
                                      "--diagnostic-addr", "127.0.0.1:0"],
                                     stdout=subprocess.DEVNULL, stderr=self.log)
        self.ports = {}
        for _ in range(200):
            self.log.seek(0)
            for line in self.log:
                if '"msg":"listening"' in line:
                    entry = json.loads(line)
                    self.ports[entry["listener"]] = entry["port"]
            if "admission" in self.ports or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if "admission" not in self.ports:
            self.log.seek(0)
            raise RuntimeError("serve did not start: " + self.log.read())

    def decide(self, review):
        return post("http://127.0.0.1:%d/gatekeeper" % self.ports["admission"], review)["response"]

    def put_inventory(self, tree):
        post("http://127.0.0.1:%d/v1/data/inventory" % self.ports["rest"], tree, method="PUT")

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def suites_below(paths):
    for p in paths:
        for root, _, files in os.walk(p):
            for f in sorted(files):
                if f.endswith((".yaml", ".yml")):
                    full = os.path.join(root, f)
                    docs = load_docs(full)
                    if docs and docs[0].get("kind") == "Suite" and gvk(docs[0])[0] == "test.gatekeeper.sh":
                        yield full, docs[0]


def main():
    gavel, paths = sys.argv[1], sys.argv[2:]
    cases = matched = skipped_tests = 0
    mismatches = []
    started = time.time()
    for suite_path, suite in sorted(suites_below(paths)):
        if suite.get("skip"):
            continue
        base = os.path.dirname(suite_path)
        for test in suite.get("tests", []):
            if test.get("skip") or test.get("invalid"):
                skipped_tests += 1
                continue
            with tempfile.TemporaryDirectory() as work:
                policies = os.path.join(work, "policies")
                os.mkdir(policies)
                with open(os.path.join(base, test["template"])) as f:
                    template_text = f.read()  # as it is: re-dumping could change its Rego
                with open(os.path.join(policies, "template.yaml"), "w") as f:
                    f.write(template_text)
                constraint = load_docs(os.path.join(base, test["constraint"]))[0]
                constraint.setdefault("spec", {})["enforcementAction"] = "deny"
                constraint["spec"].pop("scopedEnforcementActions", None)
                with open(os.path.join(policies, "constraint.yaml"), "w") as f:
                    yaml.safe_dump(constraint, f)
                server = Server(gavel, policies, work)
                try:
                    for case in test.get("cases", []):
                        if case.get("skip"):
                            continue
                        cases += 1
                        where = "%s: %s/%s" % (suite_path, test.get("name"), case.get("name"))
                        inventory = []
                        for p in case.get("inventory", []) or []:
                            inventory += load_docs(os.path.join(base, p))
                        server.put_inventory(inventory_tree(inventory))
                        obj = load_docs(os.path.join(base, case["object"]))[0]
                        response = server.decide(review_of(obj))
                        status = response.get("status", {})
                        if not response.get("allowed") and status.get("code") != 403:
                            mismatches.append("%s: error answer: %s" % (where, status.get("message")))
                            continue
                        lines = status.get("message", "").split("\n") if not response.get("allowed") else []
                        messages = [re.sub(r"^\[[^\]]*\] ", "", line, count=1) for line in lines]
                        problems = [p for p in (check(a, messages) for a in case.get("assertions", [])) if p]
                        if problems:
                            mismatches.append("%s: %s" % (where, problems[0]))
                        else:
                            matched += 1
                finally:
                    server.stop()
    for m in mismatches:
        print("MISMATCH " + m)
    print("serve decisions matching gator's assertions: %d/%d cases (%d tests skipped or invalid), %.1fs"
          % (matched, cases, skipped_tests, time.time() - started))
    return 0 if matched == cases else 1


if __name__ == "__main__":
    sys.exit(main())
