"""Shared code of the REST replay corpus: scenarios, servers, requests, normalisation, comparison.

A scenario (scenarios/NAME.json) holds the files a server starts with, the positional paths and
flags of `opa run --server`, and an ordered list of requests. record.py sends them to the
reference OPA and writes expected/NAME.json; replay.py sends them to another server and compares.
Python 3 standard library only.
"""

import base64
import collections
import decimal
import gzip
import http.client
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO_DIR = os.path.join(HERE, "scenarios")
EXPECTED_DIR = os.path.join(HERE, "expected")

# Response headers worth keeping in a recording. Location and Allow are compared (they are part of
# the answer); the others only count for the byte-identical score.
RECORDED_HEADERS = ("Content-Type", "Content-Encoding", "Location", "Allow", "Vary")


# ---------------------------------------------------------------------------------------------
# Scenarios


def scenario_names():
    return sorted(f[:-5] for f in os.listdir(SCENARIO_DIR) if f.endswith(".json"))


def load_scenario(name):
    with open(os.path.join(SCENARIO_DIR, name + ".json"), encoding="utf-8") as f:
        sc = json.load(f)
    sc["name"] = name
    seen = set()
    for r in sc["requests"]:
        if r["id"] in seen:
            raise ValueError(f"scenario {name}: duplicate request id {r['id']}")
        seen.add(r["id"])
    return sc


def load_expected(name):
    path = os.path.join(EXPECTED_DIR, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_files(sc, root):
    """Writes the scenario's files under root. A file is text, {"json": value} or {"base64": s}."""
    for rel, content in sc.get("files", {}).items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, str):
            data = content.encode("utf-8")
        elif "json" in content:
            data = json.dumps(content["json"], indent=2).encode("utf-8")
        elif "base64" in content:
            data = base64.b64decode(content["base64"])
        else:
            raise ValueError(f"scenario {sc['name']}: file {rel}: want text, json or base64")
        with open(path, "wb") as f:
            f.write(data)
    for rel in sc.get("dirs", []):
        os.makedirs(os.path.join(root, rel), exist_ok=True)


def request_body(req):
    """The bytes a request sends: body (text), json (serialised compactly), gzip (text, compressed),
    gzip_json (a JSON value, serialised and compressed) or body_base64 (any bytes)."""
    if "body" in req:
        return req["body"].encode("utf-8")
    if "json" in req:
        return json.dumps(req["json"], separators=(",", ":")).encode("utf-8")
    if "gzip" in req:
        return gzip.compress(req["gzip"].encode("utf-8"), mtime=0)
    if "body_base64" in req:
        return base64.b64decode(req["body_base64"])
    if "gzip_json" in req:
        return gzip.compress(json.dumps(req["gzip_json"], separators=(",", ":")).encode("utf-8"), mtime=0)
    return None


# ---------------------------------------------------------------------------------------------
# Servers


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def expand_command(template, port, root, sc):
    """Splits template like a shell and fills {port}, {dir}, {paths} and {flags}.

    {paths} and {flags}, as whole words, expand to the scenario's positional paths and its flags.
    The paths stay relative to the scenario's directory {dir}, the server's working directory, so
    that error messages name files as the recordings do ("example.rego:3")."""
    paths = list(sc.get("paths", []))
    flags = [f.replace("{dir}", root) for f in sc.get("flags", [])]
    out = []
    for word in shlex.split(template):
        if word == "{paths}":
            out.extend(paths)
        elif word == "{flags}":
            out.extend(flags)
        else:
            out.append(word.replace("{port}", str(port)).replace("{dir}", root))
    # The server runs in {dir}: a relative program path means one relative to where we run.
    if out and "/" in out[0] and not os.path.isabs(out[0]):
        out[0] = os.path.abspath(out[0])
    return out


class Server:
    """One server process for one scenario, on a free loopback port."""

    def __init__(self, template, sc, workdir, start_timeout=30.0):
        self.sc = sc
        self.root = os.path.join(workdir, sc["name"])
        shutil.rmtree(self.root, ignore_errors=True)
        os.makedirs(self.root)
        write_files(sc, self.root)
        self.port = free_port()
        self.argv = expand_command(template, self.port, self.root, sc)
        self.log_path = os.path.join(workdir, sc["name"] + ".log")
        self.log = open(self.log_path, "wb")
        self.start_timeout = start_timeout
        self.spawn_error = None
        try:
            self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=subprocess.STDOUT, cwd=self.root,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        except OSError as e:
            self.proc = None
            self.spawn_error = f"cannot start {self.argv[0]}: {e}"

    def wait_ready(self):
        """True once the port accepts connections; False if the process ended or time ran out."""
        if self.proc is None:
            return False
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return True
            except OSError:
                time.sleep(0.05)
        return False

    def log_tail(self, n=20):
        if self.spawn_error:
            return self.spawn_error
        self.log.flush()
        try:
            with open(self.log_path, "rb") as f:
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.proc.wait()
        self.log.close()


def new_workdir():
    return tempfile.mkdtemp(prefix="rest_replay.")


# ---------------------------------------------------------------------------------------------
# Requests


def send(port, req, timeout=15.0):
    """Sends one request on a fresh connection; returns the response as a recording (a dict)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    body = request_body(req)
    method = req["method"]
    try:
        conn.putrequest(method, req["path"], skip_accept_encoding=True)
        headers = req.get("headers", {})
        for k, v in headers.items():
            conn.putheader(k, v)
        if req.get("chunked"):
            # Transfer-Encoding: chunked, the body in chunks of at most 16 bytes (no Content-Length).
            conn.putheader("Transfer-Encoding", "chunked")
            conn.endheaders([body[i:i + 16] for i in range(0, len(body or b""), 16)], encode_chunked=True)
        else:
            if body is not None or method in ("POST", "PUT", "PATCH"):
                if not any(k.lower() == "content-length" for k in headers):
                    conn.putheader("Content-Length", str(len(body or b"")))
            conn.endheaders(body)
        resp = conn.getresponse()
        raw = resp.read()
        got = {"status": resp.status}
        for h in RECORDED_HEADERS:
            v = resp.getheader(h)
            if v is not None:
                got[h.lower()] = v
        if resp.getheader("Content-Encoding", "") == "gzip" and raw:
            try:
                raw = gzip.decompress(raw)
            except (OSError, EOFError) as e:
                got["decode_error"] = f"gzip: {e}"
        set_body(got, raw)
        return got
    except (OSError, http.client.HTTPException) as e:
        return {"status": 0, "error": f"{type(e).__name__}: {e}"}
    finally:
        conn.close()


def set_body(rec, raw):
    try:
        rec["body"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        rec["body_base64"] = base64.b64encode(raw).decode("ascii")


def body_bytes(rec):
    if "body_base64" in rec:
        return base64.b64decode(rec["body_base64"])
    return rec.get("body", "").encode("utf-8")


# ---------------------------------------------------------------------------------------------
# Normalisation: what may differ between two correct servers.
#
#   decision_id                       a fresh UUID per decision
#   metrics.<name>                    timer and counter values (the names are compared)
#   provenance.version, build_commit, build_timestamp, build_hostname
#                                     the server's build; also in data.system.version, which
#                                     OPA's runtime writes ({"version": ..., "build_commit": ...})
#   result.labels.id, result.labels.version (GET /v1/config)
#                                     a fresh UUID per process, and the server's version
#
# Everything else is compared as is. Explanations (?explain=) include query and parent ids; OPA
# numbers them deterministically, so they stay compared.

PLACEHOLDER = "<normalised>"


def normalise_rule(path):
    """True when the value at this key path (a tuple of keys and indices) is non-deterministic."""
    if not path:
        return False
    last = path[-1]
    if last == "decision_id":
        return True
    if len(path) >= 2 and path[-2] == "metrics" and isinstance(last, str):
        return True
    if last in ("build_commit", "build_timestamp", "build_hostname"):
        return True
    if last == "version" and len(path) >= 2 and path[-2] in ("provenance", "version"):
        return True
    if path[-3:] in (("result", "labels", "id"), ("result", "labels", "version")):
        return True
    return False


def normalise_value(v, path=()):
    if normalise_rule(path):
        return PLACEHOLDER
    if isinstance(v, dict):
        return {k: normalise_value(x, path + (k,)) for k, x in v.items()}
    if isinstance(v, list):
        return [normalise_value(x, path + (i,)) for i, x in enumerate(v)]
    return v


def parse_json(text):
    """The parsed JSON document, or None. Numbers become Decimals so that big and precise numbers
    compare exactly (1 and 1.0 compare equal, as JSON numbers)."""
    if text is None:
        return None
    try:
        return json.loads(text, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
    except ValueError:
        return None
    except decimal.InvalidOperation:
        return None


class _Rewriter:
    """Copies a JSON text byte for byte, with the values at normalised paths replaced: the text
    keeps its layout (indentation, key order, trailing newline) for the byte-identical score."""

    def __init__(self, text):
        self.s = text
        self.i = 0
        self.out = []

    def ws(self):
        j = self.i
        while j < len(self.s) and self.s[j] in " \t\r\n":
            j += 1
        self.out.append(self.s[self.i:j])
        self.i = j

    def string(self):
        m = re.compile(r'"(?:[^"\\]|\\.)*"', re.S).match(self.s, self.i)
        if not m:
            raise ValueError("string")
        self.i = m.end()
        return m.group(0)

    def value(self, path):
        self.ws()
        start = self.i
        c = self.s[self.i:self.i + 1]
        if c == "{":
            if normalise_rule(path):
                self.skip_value()
                self.out.append('"' + PLACEHOLDER + '"')
                return
            self.out.append("{")
            self.i += 1
            self.ws()
            if self.s[self.i:self.i + 1] == "}":
                self.out.append("}")
                self.i += 1
                return
            while True:
                self.ws()
                key_text = self.string()
                self.out.append(key_text)
                key = json.loads(key_text)
                self.ws()
                if self.s[self.i] != ":":
                    raise ValueError("colon")
                self.out.append(":")
                self.i += 1
                self.value(path + (key,))
                self.ws()
                c = self.s[self.i]
                self.out.append(c)
                self.i += 1
                if c == "}":
                    return
                if c != ",":
                    raise ValueError("object")
        elif c == "[":
            if normalise_rule(path):
                self.skip_value()
                self.out.append('"' + PLACEHOLDER + '"')
                return
            self.out.append("[")
            self.i += 1
            self.ws()
            if self.s[self.i:self.i + 1] == "]":
                self.out.append("]")
                self.i += 1
                return
            n = 0
            while True:
                self.value(path + (n,))
                n += 1
                self.ws()
                c = self.s[self.i]
                self.out.append(c)
                self.i += 1
                if c == "]":
                    return
                if c != ",":
                    raise ValueError("array")
        else:
            if c == '"':
                self.string()
            else:
                m = re.compile(r"-?[0-9.eE+\-]+|true|false|null").match(self.s, self.i)
                if not m:
                    raise ValueError("scalar")
                self.i = m.end()
            self.out.append('"' + PLACEHOLDER + '"' if normalise_rule(path) else self.s[start:self.i])

    def skip_value(self):
        # Copy into a scratch list, then drop it.
        saved = self.out
        self.out = []
        self.value(())
        self.out = saved

    def run(self):
        self.value(())
        self.ws()
        self.out.append(self.s[self.i:])
        return "".join(self.out)


def normalise_text(text):
    try:
        return _Rewriter(text).run()
    except (ValueError, IndexError):
        return text


# ---------------------------------------------------------------------------------------------
# Comparison


def canonical(v):
    return json.dumps(v, sort_keys=True, default=str, separators=(",", ":"))


def sort_unordered(v, paths):
    """Sorts the arrays at the given dotted key paths (a request's "unordered"; "*" is every item).
    OPA itself answers these in an order that changes from run to run: GET /v1/policies lists its
    store's map; a query's unsafe-variable errors, /v1/compile's queries and the locals of an
    explanation's events come out of map iterations."""
    for path in paths:
        v = _sort_at(v, path.split("."))
    return v


def _sort_at(v, keys):
    if not keys:
        return sorted(v, key=canonical) if isinstance(v, list) else v
    if keys[0] == "*":
        if isinstance(v, list):
            return [_sort_at(x, keys[1:]) for x in v]
        if isinstance(v, dict):
            return {k: _sort_at(x, keys[1:]) for k, x in v.items()}
        return v
    if isinstance(v, dict) and keys[0] in v:
        v = dict(v)
        v[keys[0]] = _sort_at(v[keys[0]], keys[1:])
    return v


LOCAL_VAR = re.compile(r"__local(q?)[0-9]+__")


def rename_locals(v):
    """Replaces the compiler's generated variable names (__local12__) by one name: OPA numbers
    them differently from run to run in explanations. Only for requests marked "rename_locals"."""
    if isinstance(v, str):
        return LOCAL_VAR.sub(r"__local\1N__", v)
    if isinstance(v, dict):
        return {k: rename_locals(x) for k, x in v.items()}
    if isinstance(v, list):
        return [rename_locals(x) for x in v]
    return v


def prometheus_families(text):
    names = set()
    for line in text.splitlines():
        m = re.match(r"# TYPE (\S+) ", line)
        if m:
            names.add(m.group(1))
    return names


def first_difference(a, b, path=""):
    """A short description of the first place two JSON values differ, or None."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            p = f"{path}.{k}"
            if k not in a:
                return f"{p}: only gavel has it: {short(b[k])}"
            if k not in b:
                return f"{p}: missing, OPA has {short(a[k])}"
            d = first_difference(a[k], b[k], p)
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        if len(a) != len(b):
            return f"{path}: {len(a)} items in OPA's, {len(b)} in gavel's"
        return None
    if a == b and type(a) is type(b):
        return None
    if isinstance(a, decimal.Decimal) and isinstance(b, decimal.Decimal) and a == b:
        return None
    return f"{path or '.'}: OPA {short(a)} != gavel {short(b)}"


def _displayable(v):
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() and "E" not in str(v).upper() else float(v)
    if isinstance(v, dict):
        return {k: _displayable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_displayable(x) for x in v]
    return v


def short(v, n=160):
    """v as compact JSON for a failure line, cut at n characters."""
    v = _displayable(v)
    if isinstance(v, (dict, list)):
        s = json.dumps(v, default=str, separators=(",", ":"), ensure_ascii=False)
    else:
        s = json.dumps(v, default=str, ensure_ascii=False)
    return s if len(s) <= n else s[:n] + "..."


def compare(req, exp, got):
    """Compares a recorded OPA answer with another server's.

    Returns (passed, strict, reason): passed is the score of the replay (status, compared headers
    and the body as JSON after normalisation); strict adds byte-identical bodies (after replacing
    the normalised values in place) and the same Content-Type and Content-Encoding."""
    mode = req.get("compare", "auto")
    if "error" in got:
        return False, False, f"no answer: {got['error']}"
    if exp["status"] != got["status"]:
        return False, False, f"status OPA {exp['status']} != gavel {got['status']}; gavel body: {short(got.get('body', ''), 200)}"
    for h in ("location", "allow"):
        if exp.get(h) != got.get(h):
            return False, False, f"header {h}: OPA {exp.get(h)!r} != gavel {got.get(h)!r}"
    if mode == "status":
        strict = exp.get("content-type") == got.get("content-type")
        return True, strict, "" if strict else "content-type differs"
    eb, gb = body_bytes(exp), body_bytes(got)
    if mode == "metric_names":
        ef = prometheus_families(eb.decode("utf-8", "replace"))
        gf = prometheus_families(gb.decode("utf-8", "replace"))
        if ef != gf:
            missing = sorted(ef - gf)
            extra = sorted(gf - ef)
            return False, False, f"metric families: missing {short(missing, 300)}; extra {short(extra, 300)}"
        return True, exp.get("content-type") == got.get("content-type"), ""
    ej, gj = parse_json(exp.get("body")), parse_json(got.get("body"))
    if ej is not None or gj is not None:
        if ej is None or gj is None:
            return False, False, f"body: OPA {short(exp.get('body', ''))} != gavel {short(got.get('body', ''))}"
        unordered = req.get("unordered", [])
        ev, gv = normalise_value(ej), normalise_value(gj)
        if req.get("rename_locals"):
            ev, gv = rename_locals(ev), rename_locals(gv)
        d = first_difference(sort_unordered(ev, unordered), sort_unordered(gv, unordered))
        if d:
            return False, False, "body " + d
        passed = True
    else:
        if eb != gb:
            return False, False, f"body bytes: OPA {short(eb.decode('utf-8', 'replace'))} != gavel {short(gb.decode('utf-8', 'replace'))}"
        passed = True
    strict_reasons = []
    for h in ("content-type", "content-encoding"):
        if exp.get(h) != got.get(h):
            strict_reasons.append(f"{h} {exp.get(h)!r} != {got.get(h)!r}")
    if ej is not None and (req.get("unordered") or req.get("rename_locals")):
        # Order aside, the same bytes: the same characters, as many times each.
        et, gt = normalise_text(exp["body"]), normalise_text(got["body"])
        if req.get("rename_locals"):
            et, gt = LOCAL_VAR.sub("__localN__", et), LOCAL_VAR.sub("__localN__", gt)
        if collections.Counter(et) != collections.Counter(gt):
            strict_reasons.append("layout differs (compared order-insensitively)")
    elif ej is not None:
        if normalise_text(exp["body"]) != normalise_text(got["body"]):
            strict_reasons.append("layout " + layout_difference(normalise_text(exp["body"]), normalise_text(got["body"])))
    return passed, not strict_reasons, "; ".join(strict_reasons)


def layout_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"at byte {i}: OPA {a[max(0, i - 20):i + 20]!r} gavel {b[max(0, i - 20):i + 20]!r}"
    return f"lengths {len(a)} != {len(b)} (tail OPA {a[-20:]!r} gavel {b[-20:]!r})"


def run_scenario(template, sc, workdir, on_response, start_timeout=30.0):
    """Starts a server for sc, sends every request in order and calls on_response(req, got).
    Returns None, or a message saying why the server did not start."""
    srv = Server(template, sc, workdir, start_timeout)
    try:
        if not srv.wait_ready():
            return f"server did not start: {' '.join(srv.argv)}\n{srv.log_tail()}"
        exited = None
        for req in sc["requests"]:
            if exited is None and srv.proc.poll() is not None:
                exited = f"the server exited ({srv.proc.returncode}): {srv.log_tail(5)}"
            if exited:
                on_response(req, {"status": 0, "error": exited})
                continue
            on_response(req, send(srv.port, req))
        return None
    finally:
        srv.stop()
