"""A third generation style: programs shaped like real policies (--style policy).

generate(seed) -> case dict, as generator.generate, with ids "q<VERSION>-<seed>".

generator.py and generator_exprs.py write programs over small abstract documents (`input.n`,
`data.d.list`). This style writes what people deploy: Kubernetes admission, Terraform plan, RBAC
and HTTP-API authorization policies over realistic, larger and nested documents (arrays of
objects, maps of maps, numbers written as strings, quantities, timestamps, nulls, empty
collections, unicode, keys that look alike, numeric strings as object keys, repeated keys).
Rules are the idioms of such policies: `deny contains msg if`, `violation contains {"msg": ...,
"details": {...}}`, helper functions with several clauses and defaults, `else` chains, ref heads
(`report.by_kind[k].count := n`), aggregates over comprehensions, `every` and `some k, v in` over
joins of input and data, `walk`, `object.get` with paths, `json.filter`/`json.remove`, and the
builtin families policies use (glob, regex, strings, time on fixed timestamps, units, net).
Sometimes a helper package `lib.<domain>` is imported (`import data.lib.k8s as k`). Modules come
in v1, with `import rego.v1` or `future.keywords`, and in v0 syntax (parse errors under OPA 1.x,
whose number and order must match). Queries are `data.p`, one rule, or expressions binding
several variables. About one program in ten is broken in a way a policy author breaks it.
"""

import base64
import json
import random

import generator
from generator import JsonPairs, RawNumber, dump_json

# Bumped whenever a seed's program changes, so recorded ids (q<version>-<seed>) stay unique.
VERSION = 2

DOMAINS = ["k8s", "terraform", "rbac", "http"]

USERS = ["alice", "bob", "carol", "dave", "mallory", "system:serviceaccount:kube-system:default", "ëve", "", "admin"]
TIMES = ["2024-01-02T03:04:05Z", "2024-02-29T23:59:59.5Z", "2023-12-31T23:59:59+01:00", "2024-06-15T12:00:00-07:00",
         "2024-03-10T08:30:00.123456789Z", "1970-01-01T00:00:00Z", "2025-01-01T00:00:00Z", "not-a-time"]
CPUS = ["100m", "250m", "500m", "1", "2", "1.5", "4000m", "0.5", "", "1e3m", "2k"]
MEMS = ["64Mi", "128Mi", "512Mi", "1Gi", "2Gi", "1G", "1.5Gi", "100M", "1024Ki", "0", "3Ti", "1e9"]
IMAGES = ["nginx", "nginx:latest", "nginx:1.25", "registry.corp.io/app:1.2.3", "docker.io/library/redis:7",
          "gcr.io/proj/api@sha256:abc123", "quay.io/x/y:latest", "localhost:5000/z:dev", "registry.corp.io/ünï:1",
          "evil.io/miner:latest", ""]
NAMESPACES = ["default", "kube-system", "prod", "staging", "dev", "", "team-ä"]
LABEL_KEYS = ["app", "owner", "env", "team", "App", "app.kubernetes.io/name", "cost-center", "1", "01", "tier"]
LABEL_VALUES = ["web", "api", "prod", "dev", "alice", "", "café", "日本", "1", "true", "v1.2"]
CIDRS = ["0.0.0.0/0", "10.0.0.0/8", "10.1.0.0/16", "192.168.0.0/24", "172.16.0.0/12", "::/0", "2001:db8::/32",
         "10.0.0.5/32", "bad-cidr"]
IPS = ["10.1.2.3", "192.168.0.7", "8.8.8.8", "172.20.1.1", "2001:db8::5", "127.0.0.1", "10.0.0.5", "x.y"]
RESOURCE_TYPES = ["aws_instance", "aws_s3_bucket", "aws_security_group", "aws_iam_policy", "google_compute_instance",
                  "azurerm_storage_account", "aws_db_instance"]
INSTANCE_TYPES = ["t3.micro", "t3.large", "m5.xlarge", "p4d.24xlarge", "t2.nano", ""]
ACTIONS = ["read", "write", "delete", "list", "admin", "approve", "Read"]
ROLES = ["admin", "dev", "viewer", "auditor", "ops", "billing"]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "get"]
PATHS = ["/v1/users/42", "/v1/users/42/orders", "/v1/orders/7/items/3", "/admin/settings", "/v1/users/", "/",
         "/v1/users/alice/orders", "/v2/reports/2024-01", "/v1//users", "/héllo/wörld"]
SCOPES = ["read", "read write", "write", "admin read", "", "orders:read users:write"]


def q(s):
    """A Rego string literal (JSON's escapes are Rego's)."""
    return json.dumps(s, ensure_ascii=False)


class PolicyGen(generator.Draws):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.counter = 0
        self.domain = self.pick(DOMAINS)
        # v1: OPA 1.x's syntax; rego.v1 / future: the same with an import; v0: without `if` and
        # `contains` (parse errors in OPA 1.x); mixed: v0 rules in a module importing future.keywords.
        self.syntax = self.pick(["v1"] * 10 + ["rego.v1"] * 3 + ["future"] * 3 + ["v0", "mixed"])
        self.rules = []   # (name, kind): kind "set", "bool", "value", "obj", "func:N"
        self.lib = None   # (alias, [(function, arity)]) of the imported helper package
        self.funcs = []   # (name, arity) of package p's functions

    def fresh(self, prefix="x"):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    # ---- JSON values that look like what policies read ---------------------------------------
    def num(self, choices, as_string=0.2):
        """A number from choices, sometimes written as a string (as YAML-born documents have them)."""
        text = self.pick(choices)
        return text if self.chance(as_string) else RawNumber(text)

    def maybe(self, value, p_null=0.08):
        return None if self.chance(p_null) else value

    def labels(self):
        pairs = [(self.pick(LABEL_KEYS), self.pick(LABEL_VALUES)) for _ in range(self.n(0, 4))]
        if pairs and self.chance(0.1):
            pairs.append((pairs[0][0], self.pick(LABEL_VALUES)))  # a repeated key: the last wins
            return JsonPairs(pairs)
        return dict(pairs)

    def ts(self):
        return self.pick(TIMES)

    def jwt(self, payload):
        def part(obj):
            return base64.urlsafe_b64encode(dump_json(obj).encode()).decode().rstrip("=")
        return "%s.%s.%s" % (part({"alg": self.pick(["HS256", "none", "RS256"]), "typ": "JWT"}), part(payload),
                             self.pick(["c2lnbmF0dXJl", "", "x"]))

    # ---- Kubernetes admission --------------------------------------------------------------
    def container(self):
        c = {"name": self.pick(["app", "sidecar", "init", "nginx", "ÄPP", ""]), "image": self.pick(IMAGES)}
        if self.chance(0.8):
            sc = {}
            for key, vals in (("privileged", [True, False, None]), ("runAsNonRoot", [True, False]),
                              ("runAsUser", [RawNumber("0"), RawNumber("1000"), "0", "1000", RawNumber("1e3")]),
                              ("allowPrivilegeEscalation", [True, False]),
                              ("capabilities", [{"add": ["NET_ADMIN", "SYS_TIME"]}, {"add": []}, {"drop": ["ALL"]}, {}])):
                if self.chance(0.5):
                    sc[key] = self.pick(vals)
            c["securityContext"] = sc if self.chance(0.9) else None
        if self.chance(0.8):
            res = {}
            for kind in ("limits", "requests"):
                if self.chance(0.7):
                    res[kind] = {k: v for k, v in (("cpu", self.pick(CPUS)), ("memory", self.pick(MEMS))) if self.chance(0.8)}
            c["resources"] = res
        if self.chance(0.5):
            c["ports"] = [{"containerPort": self.num(["80", "443", "8080", "22", "65536", "0"]),
                           **({"hostPort": self.num(["80", "22", "0"])} if self.chance(0.3) else {}),
                           "protocol": self.pick(["TCP", "UDP", "tcp"])} for _ in range(self.n(0, 3))]
        if self.chance(0.4):
            c["env"] = [{"name": self.pick(["DB_PASSWORD", "API_TOKEN", "HOME", "secret_key", "LOG_LEVEL"]),
                         "value": self.pick(["hunter2", "", "debug", "1"])} if self.chance(0.7) else
                        {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}
                        for _ in range(self.n(0, 3))]
        return c

    def k8s_input(self):
        kind = self.pick(["Pod", "Pod", "Deployment", "Service", "Namespace"])
        meta = {"name": self.pick(["web-1", "api", "db-0", "ñame", ""]), "namespace": self.pick(NAMESPACES),
                "labels": self.labels(), "annotations": self.pick([{}, {"config": '{"replicas": 3, "debug": true}'},
                                                                  {"owner": "alice", "ttl": "24h"},
                                                                  {"config": "{bad json"}]),
                "creationTimestamp": self.maybe(self.ts(), 0.2)}
        spec = {"containers": [self.container() for _ in range(self.n(0, 3))]}
        if self.chance(0.4):
            spec["initContainers"] = [self.container() for _ in range(self.n(0, 2))]
        for key, vals in (("hostNetwork", [True, False]), ("hostPID", [True, False]),
                          ("serviceAccountName", ["default", "builder", ""]),
                          ("volumes", [[], [{"name": "v", "hostPath": {"path": "/var/run/docker.sock"}}],
                                       [{"name": "c", "configMap": {"name": "cm"}}, {"name": "e", "emptyDir": {}}]])):
            if self.chance(0.5):
                spec[key] = self.pick(vals)
        obj = {"apiVersion": "v1", "kind": kind, "metadata": meta, "spec": spec}
        if kind == "Deployment":
            obj["spec"] = {"replicas": self.num(["1", "3", "0", "10", "2.0"]), "template": {"spec": spec}}
        req = {"uid": "7f3a", "kind": {"group": "" if kind != "Deployment" else "apps", "version": "v1", "kind": kind},
               "operation": self.pick(["CREATE", "UPDATE", "DELETE", "CONNECT"]), "namespace": meta["namespace"],
               "userInfo": {"username": self.pick(USERS), "groups": self.rng.sample(
                   ["system:masters", "system:authenticated", "devs", "ops"], self.n(0, 3))},
               "object": obj, "oldObject": None if self.chance(0.6) else {"metadata": {"labels": self.labels()}},
               "dryRun": self.chance(0.2)}
        return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": req}

    def k8s_data(self):
        return {"k8s": {
            "registries": self.rng.sample(["registry.corp.io/", "docker.io/library/", "gcr.io/proj/", "quay.io/"], self.n(0, 3)),
            "registry_globs": self.rng.sample(["registry.corp.io/*", "*.io/*/*", "gcr.io/**", "docker.io/library/*"], self.n(0, 3)),
            "limits": {"cpu": self.pick(CPUS), "memory": self.pick(MEMS)},
            "namespaces": {ns: {"labels": {"env": self.pick(["prod", "dev"])}, "quota": {"pods": self.num(["10", "0", "5"])}}
                           for ns in self.rng.sample(NAMESPACES, self.n(0, 4))},
            "required_labels": self.rng.sample(["app", "owner", "env", "team"], self.n(0, 3)),
            "exempt": {"users": self.rng.sample(USERS, self.n(0, 2)), "namespaces": ["kube-system"]},
            "ports": {"22": "ssh", "80": "http", "443": "https", "8080": None}}}

    # ---- Terraform plan --------------------------------------------------------------------
    def resource_change(self):
        rtype = self.pick(RESOURCE_TYPES)
        name = self.pick(["main", "logs", "web", "db", "this", "a-b"])
        after = {}
        if rtype in ("aws_instance", "google_compute_instance"):
            after = {"instance_type": self.pick(INSTANCE_TYPES), "ami": "ami-123",
                     "root_block_device": [{"volume_size": self.num(["8", "100", "1000", "20.5"], 0.3),
                                            "encrypted": self.pick([True, False, None])}]}
        elif rtype in ("aws_s3_bucket", "azurerm_storage_account"):
            after = {"bucket": self.pick(["logs", "Public-Data", "ü"]), "acl": self.pick(["private", "public-read", None]),
                     "versioning": self.pick([[{"enabled": True}], [{"enabled": False}], []]),
                     "server_side_encryption_configuration": self.pick([[], [{"rule": [{"sse_algorithm": "AES256"}]}]])}
        elif rtype == "aws_security_group":
            after = {"ingress": [{"from_port": self.num(["22", "0", "80", "443", "3389"]),
                                  "to_port": self.num(["22", "65535", "80", "443"]),
                                  "protocol": self.pick(["tcp", "-1", "udp"]),
                                  "cidr_blocks": self.rng.sample(CIDRS, self.n(0, 3))} for _ in range(self.n(0, 3))]}
        elif rtype == "aws_iam_policy":
            after = {"policy": self.pick(['{"Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}',
                                         '{"Statement": [{"Effect": "Allow", "Action": ["s3:GetObject"], "Resource": "arn:aws:s3:::b/*"}]}',
                                         '{"Statement": []}', "not json"])}
        else:
            after = {"allocated_storage": self.num(["20", "100", "5000"], 0.4), "engine": self.pick(["postgres", "mysql"]),
                     "publicly_accessible": self.pick([True, False])}
        if self.chance(0.8):
            after["tags"] = self.pick([None, {}, {"owner": "alice", "env": "prod"}, {"Owner": "bob"},
                                       {"env": "dev", "cost-center": "1234"}, self.labels()])
        actions = self.pick([["create"], ["update"], ["delete"], ["delete", "create"], ["no-op"], ["read"]])
        return {"address": "%s%s.%s" % (self.pick(["", "", "module.net."]), rtype, name), "type": rtype, "name": name,
                "mode": self.pick(["managed", "managed", "data"]),
                "provider_name": "registry.terraform.io/hashicorp/%s" % rtype.split("_")[0],
                "change": {"actions": actions, "before": None if "create" in actions else after,
                           "after": None if actions == ["delete"] else after,
                           "after_unknown": self.pick([{}, {"id": True}, {"tags": {"owner": True}}])}}

    def terraform_input(self):
        return {"format_version": "1.2", "terraform_version": self.pick(["1.5.7", "1.9.0", "0.12.31"]),
                "resource_changes": [self.resource_change() for _ in range(self.n(0, 5))],
                "variables": {"region": {"value": self.pick(["us-east-1", "eu-west-1", ""])},
                              "max_instances": {"value": self.num(["3", "10", "0"], 0.5)}},
                "timestamp": self.ts()}

    def terraform_data(self):
        return {"tf": {
            "costs": {t: self.num(["0.0104", "0.0832", "0.192", "32.77", "0"], 0.5) for t in INSTANCE_TYPES if self.chance(0.7)},
            "allowed_types": self.rng.sample(RESOURCE_TYPES, self.n(1, 5)),
            "required_tags": self.rng.sample(["owner", "env", "cost-center"], self.n(0, 3)),
            "max_monthly": self.num(["100", "1000", "0.5", "1e3"]),
            "blocked_ports": {"22": True, "3389": True, "23": False},
            "max_storage": {"aws_db_instance": self.num(["100", "1000"]), "default": RawNumber("50")}}}

    # ---- RBAC ------------------------------------------------------------------------------
    def rbac_input(self):
        return {"user": self.pick(USERS), "action": self.pick(ACTIONS),
                "resource": {"type": self.pick(["document", "project", "invoice", "secret"]),
                             "id": self.pick(["42", "7", "", "00"]), "owner": self.pick(USERS),
                             "tags": self.rng.sample(["public", "pii", "finance", "draft"], self.n(0, 3)),
                             "classification": self.maybe(self.pick(["public", "internal", "secret"]), 0.2)},
                "context": {"time": self.ts(), "ip": self.pick(IPS), "mfa": self.pick([True, False, None, "true"]),
                            "session": {"age_seconds": self.num(["30", "3600", "86400", "1e5"], 0.3)}}}

    def rbac_data(self):
        users = {}
        for u in self.rng.sample(USERS, self.n(1, 6)):
            users[u] = self.rng.sample(ROLES, self.n(0, 3))
        grants = {}
        for r in self.rng.sample(ROLES, self.n(1, 5)):
            grants[r] = [{"action": self.pick(ACTIONS + ["*", "re*"]), "type": self.pick(["document", "project", "*", "invoice"])}
                         for _ in range(self.n(0, 3))]
        inherits = {r: self.rng.sample(ROLES, self.n(0, 2)) for r in self.rng.sample(ROLES, self.n(0, 4))}
        return {"rbac": {"user_roles": users, "grants": grants, "inherits": inherits,
                         "trusted_cidrs": self.rng.sample(CIDRS, self.n(0, 3)),
                         "levels": {"public": RawNumber("0"), "internal": RawNumber("1"), "secret": RawNumber("2"),
                                    "1": "one", "01": "zero-one"},
                         "clearance": {u: self.num(["0", "1", "2", "3"], 0.3) for u in self.rng.sample(USERS, self.n(0, 4))}}}

    # ---- HTTP API --------------------------------------------------------------------------
    def http_input(self):
        payload = {"sub": self.pick(USERS), "iat": RawNumber("1704164645"),
                   "exp": self.pick([RawNumber("1704168245"), "1704168245", RawNumber("1.7e9")]),
                   "scope": self.pick(SCOPES), "aud": self.pick([["api"], "api", [], ["web", "api"]]),
                   "roles": self.rng.sample(ROLES, self.n(0, 2))}
        headers = {"Authorization": self.pick(["Bearer " + self.jwt(payload), "Basic YWxpY2U6cHc=", "", "Bearer "]),
                   "X-Forwarded-For": self.pick(["10.1.2.3, 192.168.0.7", "8.8.8.8", "", " 10.0.0.5 ,x"]),
                   "Content-Type": self.pick(["application/json", "text/plain; charset=utf-8"])}
        if self.chance(0.3):
            headers = JsonPairs(list(headers.items()) + [("authorization", "Bearer lower")])
        body = self.pick([None, {}, {"user": {"name": "alice", "email": "a@corp.io", "password": "pw"},
                                     "items": [{"sku": "A1", "price": self.num(["19.99", "0", "1e2"], 0.4),
                                                "qty": self.num(["1", "3", "0"], 0.3)} for _ in range(self.n(0, 3))]},
                          {"amount": self.num(["100", "-5", "1e6", "99.999"], 0.4), "currency": self.pick(["USD", "€", ""])}])
        return {"method": self.pick(METHODS), "path": self.pick(PATHS), "headers": headers,
                "query": {k: [self.pick(["10", "100", "1000", "-1", "x", "1e2"])] for k in
                          self.rng.sample(["limit", "page", "offset"], self.n(0, 3))},
                "body": body, "token": {"payload": payload}, "time": self.ts(), "source_ip": self.pick(IPS)}

    def http_data(self):
        return {"api": {
            "routes": [{"method": self.pick(METHODS[:5] + ["*"]), "path": self.pick(["/v1/users/*", "/v1/users/*/orders",
                                                                                    "/admin/**", "/v1/**", "/"]),
                        "roles": self.rng.sample(ROLES, self.n(0, 2))} for _ in range(self.n(1, 5))],
            "rate_limits": {"1": RawNumber("100"), "2": RawNumber("10"), "10": "5", "1.0": RawNumber("7")},
            "tiers": {u: self.pick(["1", "2", "10", 1]) for u in self.rng.sample(USERS, self.n(0, 4))},
            "blocked_cidrs": self.rng.sample(CIDRS, self.n(0, 3)),
            "max_limit": self.num(["100", "50", "1e2"]),
            "clients": {self.pick(USERS): {"scopes": self.rng.sample(["read", "write", "admin"], self.n(0, 3))}
                        for _ in range(self.n(0, 3))}}}

    # ---- Rego building blocks ----------------------------------------------------------------
    def each(self, var, coll):
        """A statement binding var to each element of coll."""
        k = self.n(0, 5)
        if k <= 2:
            return "some %s in %s" % (var, coll)
        if k == 3:
            return "%s := %s[_]" % (var, coll)
        if k == 4:
            i = self.fresh("i")
            return "some %s, %s in %s" % (i, var, coll)
        i = self.fresh("i")
        return "some %s\n\t%s := %s[%s]" % (i, var, coll, i)

    def head(self, term):
        """A comprehension's head: an infix term mostly in parentheses (`a * b | ...` parses `|` as union)."""
        return generator.parenthesized(term) if self.chance(0.85) else term

    def msg(self, fmt, args):
        k = self.n(0, 3)
        if k == 0 and len(args) == 1:
            return "concat(\"\", [%s, %s])" % (q(fmt.split("%")[0]), "sprintf(\"%%v\", [%s])" % args[0])
        return "sprintf(%s, [%s])" % (q(fmt), ", ".join(args))

    def get(self, base, path, default):
        """object.get with a path array, or a plain reference (undefined when missing)."""
        if self.chance(0.5):
            return "object.get(%s, [%s], %s)" % (base, ", ".join(q(p) if isinstance(p, str) else str(p) for p in path), default)
        return base + "".join("." + p if isinstance(p, str) and p.isidentifier() else "[%s]" % (q(p) if isinstance(p, str) else p)
                              for p in path)

    def render_rule(self, head, lines, value_after_if=False):
        """A rule in the module's syntax. head is v1 (`deny contains msg`, `allow`, `f(x) := y`)."""
        v0 = self.syntax == "v0" or (self.syntax == "mixed" and self.chance(0.5))
        if v0:
            if " contains " in head:
                name, _, term = head.partition(" contains ")
                head = "%s[%s]" % (name, term)
            sep = " "
        else:
            sep = " if "
        if not lines:
            return head
        if len(lines) == 1 and "\n" not in lines[0] and not v0 and self.chance(0.4):
            return "%s%s%s" % (head, sep, lines[0])
        return "%s%s{\n\t%s\n}" % (head, sep, "\n\t".join(lines))

    # ---- rules per domain ---------------------------------------------------------------------
    def k8s_containers(self):
        spec = self.pick(["input.request.object.spec", "input.request.object.spec", "input.request.object.spec.template.spec"])
        k = self.n(0, 5)
        if k == 0:
            return "array.concat(%s.containers, object.get(%s, \"initContainers\", []))" % (spec, spec)
        if k == 1:
            return "[c | some f in [\"containers\", \"initContainers\"]; some c in object.get(%s, f, [])]" % spec
        if k == 2 and self.lib:
            return "%s.containers" % self.lib[0]
        return spec + ".containers"

    def k8s_container_check(self, c):
        """(condition lines, message format, message args) about container c."""
        name = "%s.name" % c
        return self.pick([
            lambda: ([self.pick(["%s.securityContext.privileged" % c, "%s.securityContext.privileged == true" % c,
                                 self.get(c, ["securityContext", "privileged"], "false") + " == true"])],
                     "container %q is privileged", [name]),
            lambda: (["not %s.securityContext.runAsNonRoot" % c], "container %s may run as root", [name]),
            lambda: (["to_number(%s) == 0" % self.get(c, ["securityContext", "runAsUser"], "\"1\"")], "%s runs as uid 0", [name]),
            lambda: (["not startswith(%s.image, %s)" % (c, q("registry.corp.io/"))], "image %v from untrusted registry", ["%s.image" % c]),
            lambda: (["not trusted_image(%s.image)" % c], "image %q not trusted", ["%s.image" % c]),
            lambda: ([self.pick(["endswith(%s.image, \":latest\")" % c, "not contains(%s.image, \":\")" % c,
                                 "regex.match(`^[^@]+:latest$`, %s.image)" % c,
                                 "count(split(%s.image, \":\")) == 1" % c,
                                 "[_, tag] := split(%s.image, \":\")\n\ttag == \"latest\"" % c])],
                     "image %v uses a mutable tag", ["%s.image" % c]),
            lambda: (["units.parse(%s.resources.limits.cpu) > units.parse(data.k8s.limits.cpu)" % c],
                     "cpu limit %v above %v", ["%s.resources.limits.cpu" % c, "data.k8s.limits.cpu"]),
            lambda: (["mem := units.parse_bytes(%s)" % self.get(c, ["resources", "limits", "memory"], "\"0\""),
                      "mem > units.parse_bytes(data.k8s.limits.memory)"], "memory %d bytes too large", ["mem"]),
            lambda: (["not %s.resources.limits.memory" % c], "container %q has no memory limit", [name]),
            lambda: ([self.each("p", "%s.ports" % c), "p.hostPort"], "hostPort %v used by %s", ["p.hostPort", name]),
            lambda: ([self.each("p", "%s.ports" % c), "to_number(p.containerPort) < 1024"], "privileged port %v", ["p.containerPort"]),
            lambda: ([self.each("e", "%s.env" % c), "regex.match(`(?i)(password|secret|token|key)`, e.name)", "e.value"],
                     "secret %s in env of %s", ["e.name", name]),
            lambda: (["caps := {x | some x in object.get(%s, [\"securityContext\", \"capabilities\", \"add\"], [])}" % c,
                      "bad := caps & {\"NET_ADMIN\", \"SYS_ADMIN\", \"SYS_TIME\"}", "count(bad) > 0"],
                     "capabilities %v added", ["sort(bad)"]),
            lambda: (["every reg in data.k8s.registry_globs {\n\t\tnot glob.match(reg, [\"/\"], %s.image)\n\t}" % c],
                     "image %s matches no allowed pattern", ["%s.image" % c]),
            lambda: (["%s.securityContext == null" % c], "%s has a null securityContext", [name]),
        ])()

    def k8s_rule(self):
        k = self.n(0, 11)
        obj = "input.request.object"
        if k <= 4:
            c = self.fresh("c")
            conds, fmt, args = self.k8s_container_check(c)
            lines = [self.each(c, self.k8s_containers())] + conds
            return self.violation_rule(lines, fmt, args, {"container": "%s.name" % c, "kind": "input.request.kind.kind"})
        if k == 5:
            req = self.pick(["{\"app\", \"owner\"}", "{l | some l in data.k8s.required_labels}", "{\"app\", \"App\", \"1\"}"])
            return self.violation_rule(["required := %s" % req,
                                        "provided := {k | some k, _ in object.get(%s, [\"metadata\", \"labels\"], {})}" % obj,
                                        "missing := required - provided", "count(missing) > 0"],
                                       "missing labels: %v", ["concat(\", \", sort(missing))"], {"missing": "missing"})
        if k == 6:
            return self.violation_rule(["input.request.operation in {\"CREATE\", \"UPDATE\"}",
                                        "ns := data.k8s.namespaces[input.request.namespace]",
                                        "ns.labels.env == \"prod\"",
                                        "count(%s.spec.containers) > to_number(ns.quota.pods)" % obj],
                                       "namespace %s over quota", ["input.request.namespace"], {"quota": "ns.quota"})
        if k == 7:
            return self.violation_rule(["ts := %s.metadata.creationTimestamp" % obj,
                                        "time.parse_rfc3339_ns(ts) < time.parse_rfc3339_ns(%s)" % q(self.ts()),
                                        self.pick(["[y, m, d] := time.date(time.parse_rfc3339_ns(ts))",
                                                   "day := time.weekday(time.parse_rfc3339_ns(ts))",
                                                   "[h, mi, s] := time.clock([time.parse_rfc3339_ns(ts), \"America/New_York\"])"])],
                                       "object created too early (%v)", ["ts"], {})
        if k == 8:
            return self.violation_rule(["cfg := json.unmarshal(%s.metadata.annotations.config)" % obj,
                                        self.pick(["cfg.debug", "cfg.replicas > 2", "object.get(cfg, \"debug\", false) == true"])],
                                       "bad config annotation %v", ["cfg"], {"cfg": "json.filter(cfg, [\"replicas\"])"})
        if k == 9:
            return self.violation_rule([self.pick([
                "glob.match(\"system:serviceaccount:*\", [\":\"], input.request.userInfo.username)",
                "\"system:masters\" in input.request.userInfo.groups",
                "not input.request.userInfo.username in data.k8s.exempt.users"]),
                "%s.spec.hostNetwork" % obj], "host network requested by %q", ["input.request.userInfo.username"], {})
        if k == 10:
            return self.violation_rule(["some path, value",
                                        "walk(%s, [path, value])" % obj,
                                        "is_string(value)",
                                        self.pick(["contains(value, \"docker.sock\")", "regex.match(`^/var/run`, value)",
                                                   "strings.count(value, \"/\") > 3"])],
                                       "path %v references %v", ["concat(\".\", [sprintf(\"%v\", [p]) | some p in path])", "value"], {})
        return self.violation_rule(["some name, port in data.k8s.ports",
                                    self.each("c", "%s.spec.containers" % obj),
                                    "some p in c.ports",
                                    "format_int(to_number(p.containerPort), 10) == name"],
                                   "port %s (%v) exposed", ["name", "port"], {"container": "c.name"})

    def terraform_rule(self):
        k = self.n(0, 10)
        rc = self.fresh("rc")
        each = self.each(rc, "input.resource_changes")
        changing = self.pick(["%s.change.actions[_] in {\"create\", \"update\"}" % rc,
                              "some action in %s.change.actions\n\taction != \"no-op\"" % rc,
                              "not %s.change.actions == [\"delete\"]" % rc, "%s.mode == \"managed\"" % rc])
        if k <= 1:
            return self.violation_rule([each, changing, "not %s.type in {t | some t in data.tf.allowed_types}" % rc],
                                       "resource type %s not allowed", ["%s.type" % rc], {"address": "%s.address" % rc})
        if k == 2:
            return self.violation_rule([each, changing,
                                        "tags := {t | some t, _ in object.get(%s.change.after, \"tags\", {})}" % rc,
                                        "missing := {t | some t in data.tf.required_tags} - tags", "missing != set()"],
                                       "%s lacks tags %v", ["%s.address" % rc, "missing"], {"tags": "tags"})
        if k == 3:
            return self.violation_rule([each, "%s.type == \"aws_security_group\"" % rc,
                                        "some rule in %s.change.after.ingress" % rc,
                                        "some cidr in rule.cidr_blocks",
                                        self.pick(["cidr == \"0.0.0.0/0\"", "net.cidr_contains(cidr, \"8.8.8.8\")",
                                                   "net.cidr_intersects(cidr, \"0.0.0.0/1\")"]),
                                        "to_number(rule.from_port) <= 22", "to_number(rule.to_port) >= 22"],
                                       "%s opens ssh to %s", ["%s.address" % rc, "cidr"], {"rule": "rule"})
        if k == 4:
            return self.value_rule(self.pick(["monthly_cost", "cost"]), [
                "costs := [%s |\n\t\t%s\n\t\t%s.type == \"aws_instance\"\n\t]"
                % (self.head("to_number(data.tf.costs[%s.change.after.instance_type]) * 730" % rc), each.replace("\n\t", "\n\t\t"), rc)], self.pick(["sum(costs)", "round(sum(costs) * 100) / 100",
                                                                      "max(array.concat(costs, [0]))"]))
        if k == 5:
            return self.refhead_rule("counts", "by_type", ["t"], [
                "some t in {r.type | some r in input.resource_changes}",
                "n := count([r | some r in input.resource_changes; r.type == t])"], "n")
        if k == 6:
            return self.violation_rule([each, "%s.type == \"aws_iam_policy\"" % rc,
                                        "doc := json.unmarshal(%s.change.after.policy)" % rc,
                                        "some st in doc.Statement", "st.Effect == \"Allow\"",
                                        self.pick(["st.Action == \"*\"",
                                                   "\"*\" in array.concat([a | some a in st.Action; is_array(st.Action)], [st.Action])",
                                                   "some a in {a | some a in st.Action} | {st.Action}\n\tglob.match(\"*\", [], a)"])],
                                       "%s grants everything", ["%s.address" % rc], {"statement": "st"})
        if k == 7:
            return self.violation_rule([each, "size := object.get(%s.change.after, [\"root_block_device\", 0, \"volume_size\"], 0)" % rc,
                                        "to_number(size) > to_number(object.get(data.tf.max_storage, %s.type, data.tf.max_storage.default))" % rc],
                                       "%s volume of %v GB", ["%s.address" % rc, "size"], {})
        if k == 8:
            return self.value_rule("nulls", ["found := [p |\n\t\twalk(input.resource_changes, [p, v])\n\t\tv == null\n\t]"],
                self.pick(["count(found)", "[concat(\"/\", [sprintf(\"%v\", [x]) | some x in p]) | some p in found]"]))
        if k == 9:
            return self.violation_rule([each, "startswith(%s.address, \"module.\")" % rc,
                                        "parts := regex.split(`\\.`, %s.address)" % rc, "count(parts) > 3"],
                                       "nested module resource %s", ["%s.address" % rc], {"parts": "parts"})
        return self.violation_rule([each, "%s.type == \"aws_s3_bucket\"" % rc,
                                    self.pick(["%s.change.after.acl == \"public-read\"" % rc,
                                               "not %s.change.after.versioning[0].enabled" % rc,
                                               "count(%s.change.after.server_side_encryption_configuration) == 0" % rc])],
                                   "bucket %s is not safe", ["%s.change.after.bucket" % rc],
                                   {"after": "json.remove(%s.change.after, [\"tags\", \"versioning/0\"])" % rc})

    def rbac_rule(self):
        k = self.n(0, 9)
        if k <= 2:
            lines = [self.pick(["some role in data.rbac.user_roles[input.user]",
                                "some role in user_roles",
                                "some role in graph.reachable(data.rbac.inherits, data.rbac.user_roles[input.user])"]),
                     self.each("g", "data.rbac.grants[role]"),
                     self.pick(["g.action == input.action", "glob.match(g.action, [], input.action)",
                                "g.action in {input.action, \"*\"}", "lower(g.action) == lower(input.action)"]),
                     self.pick(["g.type == input.resource.type", "g.type in {\"*\", input.resource.type}"])]
            self.ensure_user_roles()
            return self.bool_rule("allow", lines, default=True)
        if k == 3:
            return self.bool_rule("allow", ["input.resource.owner == input.user",
                                            "input.action in {\"read\", \"write\"}"], default=True)
        if k == 4:
            return self.function_rule()
        if k == 5:
            return self.decision_rule()
        if k == 6:
            return self.violation_rule(["input.resource.classification",
                                        "level := data.rbac.levels[input.resource.classification]",
                                        "clearance := to_number(object.get(data.rbac.clearance, input.user, 0))",
                                        "clearance < level"], "%s lacks clearance %v", ["input.user", "level"],
                                       {"clearance": "clearance"})
        if k == 7:
            return self.bool_rule("trusted_network", [self.pick([
                "net.cidr_contains_matches(data.rbac.trusted_cidrs, input.context.ip) != set()",
                "some cidr in data.rbac.trusted_cidrs\n\tnet.cidr_contains(cidr, input.context.ip)",
                "count(net.cidr_contains_matches(data.rbac.trusted_cidrs, [input.context.ip])) > 0"])], default=self.chance(0.5))
        if k == 8:
            return self.bool_rule("business_hours", [
                "ns := time.parse_rfc3339_ns(input.context.time)",
                "[h, _, _] := time.clock([ns, %s])" % q(self.pick(["UTC", "Europe/Berlin", "Asia/Tokyo"])),
                "h >= 9", "h < 17", "not time.weekday(ns) in {\"Saturday\", \"Sunday\"}"], default=self.chance(0.5))
        return self.refhead_rule("perms", self.pick(["by_user", "users"]), ["u"], [
            "some u, roles in data.rbac.user_roles",
            "actions := {g.action | some r in roles; some g in object.get(data.rbac.grants, r, [])}"],
            self.pick(["sort(actions)", "count(actions)", "{\"n\": count(actions), \"roles\": roles}"]))

    def http_rule(self):
        k = self.n(0, 10)
        if k <= 1:
            return self.bool_rule("allow", [
                "parts := split(trim(input.path, \"/\"), \"/\")",
                self.pick(["parts = [\"v1\", \"users\", uid]", "[\"v1\", \"users\", uid] = parts",
                           "parts[0] == \"v1\"\n\tuid := parts[2]"]),
                "input.method in {\"GET\", \"HEAD\"}", self.pick(["uid == token.sub", "token.sub == uid",
                                                                    "to_number(uid) > 0"])],
                default=True, needs_token=True)
        if k == 2:
            return self.bool_rule("allow", [
                "some route in data.api.routes",
                "route.method in {input.method, \"*\"}",
                "glob.match(route.path, [\"/\"], input.path)",
                "some role in route.roles", "role in token.roles"], default=True, needs_token=True)
        if k == 3:
            return self.violation_rule(["limit := to_number(%s)" % self.get("input.query", ["limit", 0], "\"10\""),
                                        "limit > to_number(data.api.max_limit)"], "limit %v too high", ["limit"], {})
        if k == 4:
            return self.violation_rule(["ips := [trim_space(ip) | some ip in split(input.headers[\"X-Forwarded-For\"], \",\")]",
                                        "some ip in ips", "some cidr in data.api.blocked_cidrs",
                                        "net.cidr_contains(cidr, ip)"], "address %s is blocked by %s", ["ip", "cidr"], {})
        if k == 5:
            return self.violation_rule([self.pick(["not \"write\" in split(token.scope, \" \")",
                                                   "not regex.match(`(^| )write( |$)`, token.scope)",
                                                   "not strings.any_prefix_match(split(token.scope, \" \"), \"write\")"]),
                                        "input.method in {\"POST\", \"PUT\", \"PATCH\", \"DELETE\"}"],
                                       "scope %q cannot %s", ["token.scope", "input.method"], {}, needs_token=True)
        if k == 6:
            return self.violation_rule(["exp := to_number(token.exp)",
                                        "now := time.parse_rfc3339_ns(input.time) / 1000000000", "exp < now"],
                                       "token expired %v seconds ago", ["round(now - exp)"], {}, needs_token=True)
        if k == 7:
            return self.value_rule("order_total", [
                "items := object.get(input, [\"body\", \"items\"], [])",
                "prices := [%s | some i in items]" % self.head("to_number(i.price) * to_number(i.qty)")],
                self.pick(["sum(prices)", "max(prices)", "count(prices)", "sort(prices)"]))
        if k == 8:
            return self.value_rule("sanitized", [], self.pick([
                "json.remove(object.get(input, \"body\", {}), [\"user/password\", \"items\"])",
                "json.filter(input, [\"body/user/name\", \"headers/Content-Type\", \"query\"])",
                "object.remove(input.headers, [\"Authorization\"])",
                "object.union(input.query, {\"limit\": [\"0\"]})"]))
        if k == 9:
            return self.value_rule("rate_limit", [
                "tier := object.get(data.api.tiers, token.sub, \"1\")"],
                self.pick(["data.api.rate_limits[tier]", "object.get(data.api.rate_limits, format_int(to_number(tier), 10), 0)",
                           "data.api.rate_limits[sprintf(\"%v\", [tier])]"]), needs_token=True)
        return self.decision_rule()

    # ---- builtins over the domain's documents --------------------------------------------------
    # Paths into each domain's input and data by what they usually hold (sometimes they hold
    # something else, or nothing: the documents vary).
    PATHS = {
        "k8s": {"str": ["input.request.object.metadata.name", "input.request.namespace", "input.request.userInfo.username",
                        "input.request.object.spec.containers[0].image", "input.request.object.metadata.annotations.ttl",
                        "input.request.object.metadata.creationTimestamp", "input.request.operation",
                        "input.request.object.spec.containers[0].resources.limits.memory"],
                "num": ["input.request.object.spec.replicas", "input.request.object.spec.containers[0].ports[0].containerPort",
                        "data.k8s.namespaces.prod.quota.pods", "input.request.object.spec.containers[0].securityContext.runAsUser"],
                "obj": ["input.request.object.metadata.labels", "input.request.object.metadata.annotations", "data.k8s.namespaces",
                        "input.request.object.spec", "data.k8s.ports", "input.request.object.spec.containers[0]"],
                "arr": ["input.request.object.spec.containers", "input.request.userInfo.groups", "data.k8s.registries",
                        "data.k8s.required_labels", "input.request.object.spec.volumes"]},
        "terraform": {"str": ["input.resource_changes[0].address", "input.resource_changes[0].type", "input.terraform_version",
                              "input.timestamp", "input.variables.region.value", "input.resource_changes[0].change.after.instance_type"],
                      "num": ["input.variables.max_instances.value", "data.tf.max_monthly", "data.tf.costs[\"t3.micro\"]",
                              "input.resource_changes[0].change.after.root_block_device[0].volume_size"],
                      "obj": ["input.resource_changes[0].change.after", "data.tf.costs", "input.variables", "data.tf.blocked_ports",
                              "input.resource_changes[0].change.after.tags"],
                      "arr": ["input.resource_changes", "data.tf.allowed_types", "data.tf.required_tags",
                              "input.resource_changes[0].change.actions"]},
        "rbac": {"str": ["input.user", "input.action", "input.resource.id", "input.resource.owner", "input.context.time",
                         "input.context.ip", "input.resource.classification"],
                 "num": ["input.context.session.age_seconds", "data.rbac.levels.secret", "data.rbac.clearance.alice"],
                 "obj": ["data.rbac.user_roles", "data.rbac.grants", "data.rbac.levels", "input.resource", "input.context"],
                 "arr": ["input.resource.tags", "data.rbac.trusted_cidrs", "data.rbac.user_roles.alice", "data.rbac.grants.admin"]},
        "http": {"str": ["input.method", "input.path", "input.headers.Authorization", "input.headers[\"X-Forwarded-For\"]",
                         "input.time", "input.source_ip", "input.token.payload.scope", "input.query.limit[0]"],
                 "num": ["input.token.payload.iat", "input.token.payload.exp", "input.body.amount", "data.api.max_limit",
                         "input.body.items[0].price"],
                 "obj": ["input.headers", "input.query", "input.body", "input.token.payload", "data.api.rate_limits", "data.api.tiers"],
                 "arr": ["data.api.routes", "input.body.items", "input.token.payload.aud", "data.api.blocked_cidrs",
                         "input.token.payload.roles"]},
    }

    def path(self, kind):
        return self.pick(self.PATHS[self.domain][kind])

    def builtin_expr(self):
        """One expression of the builtin families policies use, over the domain's documents."""
        s, s2, n, o, a = self.path("str"), self.path("str"), self.path("num"), self.path("obj"), self.path("arr")
        x = self.fresh("v")
        return self.pick([
            lambda: "lower(%s)" % s, lambda: "upper(trim_space(%s))" % s,
            lambda: "split(%s, %s)" % (s, q(self.pick(["/", ".", ":", ",", " ", ""]))),
            lambda: "concat(%s, %s)" % (q(self.pick([",", "/", ""])), self.pick(["[%s, %s]" % (s, s2), "{%s, %s}" % (s, s2),
                                                                                 "[sprintf(\"%%v\", [x]) | some x in %s]" % a])),
            lambda: "substring(%s, %s, %s)" % (s, self.pick(["0", "1", "3"]), self.pick(["-1", "2", "100"])),
            lambda: "indexof(%s, %s)" % (s, q(self.pick(["/", "a", "é", ""]))),
            lambda: "strings.replace_n({%s: %s}, %s)" % (q(self.pick(["/", "a", "-"])), q(self.pick(["_", "", "ä"])), s),
            lambda: "replace(%s, %s, %s)" % (s, q(self.pick(["a", "-", "."])), q(self.pick(["", "_"]))),
            lambda: "trim(%s, %s)" % (s, q(self.pick(["/", " ", "v1"]))), lambda: "count(%s)" % self.pick([s, o, a]),
            lambda: "sprintf(%s, [%s])" % (q(self.pick(["%v", "%s=%v", "%d items", "%q", "%v|%v", "%.2f", "%x", "%T"])),
                                           ", ".join(self.pick([s, n, o, a]) for _ in range(self.n(1, 2)))),
            lambda: "format_int(to_number(%s), %s)" % (n, self.pick(["10", "16", "2"])),
            lambda: "to_number(%s)" % self.pick([n, s]), lambda: "round(to_number(%s) * 100) / 100" % n,
            lambda: "%s %s %s" % (n, self.pick(["+", "-", "*", "/", "%"]), self.pick(["1", "2.5", "0", "1e3", n])),
            lambda: "%s %s %s" % (n, self.pick(["<", ">=", "==", "!="]), self.pick(["\"10\"", "10", n, s])),
            lambda: "%s %s %s" % (s, self.pick(["<", ">", "=="]), s2),
            lambda: "json.marshal(%s)" % self.pick([o, a, "{%s: %s}" % (s, n)]),
            lambda: "json.unmarshal(json.marshal(%s))" % self.pick([o, a]),
            lambda: "yaml.marshal(%s)" % self.pick([o, a]), lambda: "base64.encode(%s)" % s,
            lambda: "base64url.decode(%s)" % s, lambda: "urlquery.encode(%s)" % s,
            lambda: "urlquery.encode_object(%s)" % self.pick(["input.query", "{\"a\": %s}" % s, "{\"k\": [%s, \"x\"]}" % s]),
            lambda: "object.keys(%s)" % o, lambda: "sort(object.keys(%s))" % o,
            lambda: "object.get(%s, %s, %s)" % (o, self.pick(["\"a\"", "[\"a\", 0]", "[]", "[0]", "\"1\""]), self.pick(["null", "{}", "0"])),
            lambda: "object.filter(%s, %s)" % (o, self.pick(["[\"a\", \"1\"]", "{\"prod\", \"app\"}", "object.keys(%s)" % o])),
            lambda: "object.union_n([%s, %s])" % (o, self.pick(["{}", o, "{\"z\": null}"])),
            lambda: "json.filter(%s, [%s])" % (o, q(self.pick(["a", "a/b", "1", "0/name", "labels/app"]))),
            lambda: "json.remove(%s, [%s])" % (o, q(self.pick(["a", "a/b", "1", "0"]))),
            lambda: "json.patch(%s, [{\"op\": %s, \"path\": %s, \"value\": 1}])" % (o, q(self.pick(["add", "replace", "remove"])),
                                                                                q(self.pick(["/a", "/0", "/-", "/a/b", ""]))),
            lambda: "[%s | some %s in %s]" % (self.head("count(%s)" % x if self.chance(0.5) else "%s" % x), x, a),
            lambda: "{k | some k, _ in %s}" % o, lambda: "{k: count(%s) | some k, %s in %s}" % (x, x, o),
            lambda: "[v | walk(%s, [p, v]); is_string(v)]" % o,
            lambda: "[p | walk(%s, [p, v]); is_number(v)]" % o,
            lambda: "sort([%s | some %s in %s])" % (x, x, a), lambda: "max([to_number(%s) | some %s in %s])" % (x, x, a),
            lambda: "sum([1 | some _ in %s])" % a, lambda: "array.slice(%s, 1, %s)" % (a, self.pick(["2", "-1", "100"])),
            lambda: "array.reverse(%s)" % a, lambda: "array.concat(%s, [%s])" % (a, s), lambda: "{x | some x in %s} & {%s}" % (a, s),
            lambda: "%s in %s" % (s, self.pick([a, o, "{%s}" % s2])), lambda: "[k, v] := [%s, %s]" % (s, n),
            lambda: "glob.match(%s, %s, %s)" % (q(self.pick(["*", "**", "a*", "*.io/*", "/v1/*", "[a-c]*", "{a,b}*"])),
                                                self.pick(["[]", "[\"/\"]", "[\".\"]", "null"]), s),
            lambda: "glob.quote_meta(%s)" % s,
            lambda: "regex.match(%s, %s)" % (q(self.pick(["^[a-z]+$", "(?i)ADMIN", "\\\\d+", "^/v1/", "[", "é"])), s),
            lambda: "regex.find_n(%s, %s, %s)" % (q(self.pick(["[a-z]+", "\\\\d", "/[^/]*"])), s, self.pick(["-1", "1", "0"])),
            lambda: "regex.split(%s, %s)" % (q(self.pick(["/", "[.:]", "\\\\s*,\\\\s*"])), s),
            lambda: "regex.replace(%s, %s, %s)" % (s, q(self.pick(["[0-9]", "(\\\\w+)", "^"])), q(self.pick(["#", "$1$1", ""]))),
            lambda: "regex.find_all_string_submatch_n(%s, %s, -1)" % (q(self.pick(["(\\\\w)(\\\\w)", "([a-z]+)/(\\\\d+)"])), s),
            lambda: "strings.any_prefix_match(%s, %s)" % (s, self.pick(["[\"a\", \"/v1\"]", a])),
            lambda: "startswith(%s, %s)" % (s, s2), lambda: "endswith(%s, %s)" % (s, q(self.pick(["Z", ":latest", "s", ""]))),
            lambda: "contains(%s, %s)" % (s, s2),
            lambda: "time.parse_rfc3339_ns(%s)" % s,
            lambda: "time.format([time.parse_rfc3339_ns(%s), %s, %s])" % (
                self.pick(["input.time", "input.timestamp", "input.context.time", q(self.ts())] if True else []),
                q(self.pick(["UTC", "Asia/Tokyo", "America/New_York"])), q(self.pick(["2006-01-02", "Mon Jan 2 15:04", "RFC3339"]))),
            lambda: "time.date(time.parse_rfc3339_ns(%s))" % q(self.ts()),
            lambda: "time.add_date(time.parse_rfc3339_ns(%s), %s, %s, %s)" % (q(self.ts()), self.pick(["0", "1", "-1"]),
                                                                             self.pick(["0", "1", "13"]), self.pick(["0", "31", "-1"])),
            lambda: "time.diff(time.parse_rfc3339_ns(%s), time.parse_rfc3339_ns(%s))" % (q(self.ts()), q(self.ts())),
            lambda: "time.parse_duration_ns(%s)" % q(self.pick(["24h", "1h30m", "90s", "1.5h", "-1m", "x", "1h1h"])),
            lambda: "time.parse_ns(%s, %s)" % (q(self.pick(["2006-01-02", "2006-01-02T15:04:05Z07:00", "Jan 2 2006"])),
                                               q(self.pick(["2024-01-02", "2024-01-02T03:04:05Z", "Feb 29 2023"]))),
            lambda: "units.parse(%s)" % self.pick([s, q(self.pick(CPUS))]),
            lambda: "units.parse_bytes(%s)" % self.pick([s, q(self.pick(MEMS))]),
            lambda: "net.cidr_contains(%s, %s)" % (q(self.pick(CIDRS)), self.pick([s, q(self.pick(IPS))])),
            lambda: "net.cidr_intersects(%s, %s)" % (q(self.pick(CIDRS)), q(self.pick(CIDRS))),
            lambda: "net.cidr_merge(%s)" % self.pick([a, "[%s, %s]" % (q(self.pick(CIDRS)), q(self.pick(CIDRS)))]),
            lambda: "net.cidr_is_valid(%s)" % s,
            lambda: "semver.compare(%s, %s)" % (q(self.pick(["1.2.3", "1.10.0", "2.0.0-rc.1"])), q(self.pick(["1.2.3", "1.9.9"]))),
            lambda: "graph.reachable(%s, [%s])" % (self.pick(["data.rbac.inherits", "{\"a\": [\"b\"], \"b\": [\"a\"]}"]), s),
            lambda: "io.jwt.decode(%s)" % self.pick([s, "trim_prefix(input.headers.Authorization, \"Bearer \")"]),
            lambda: "crypto.sha256(%s)" % s, lambda: "hex.encode(%s)" % s,
            lambda: "numbers.range(0, count(%s))" % a, lambda: "type_name(%s)" % self.pick([s, n, o, a]),
            lambda: "is_object(%s)" % o, lambda: "to_number(%s) > 0" % self.pick([n, s]),
            lambda: "uuid.parse(%s)" % s, lambda: "strings.reverse(%s)" % s,
            lambda: "sprintf(\"%%v\", [{%s: %s, %s: %s}])" % (q("b"), n, q("a"), self.pick([s, a, "{%s}" % s])),
        ])()

    def builtin_rule(self):
        """A rule built from a few builtin expressions over the documents."""
        k = self.n(0, 3)
        e = self.builtin_expr()
        name = self.pick(["info", "facts", "derived", "out"])
        if " := " in e:
            return self.value_rule(name, [e], "[k, v]")
        if k == 0:
            return self.value_rule(name, ["x := %s" % e], "x") if self.chance(0.8) else self.value_rule(name, [], e)
        if k == 1:
            return self.bool_rule(self.pick(["allow", "flagged", "ok"]), [e, self.builtin_expr()], default=self.chance(0.5))
        if k == 2:
            return self.violation_rule(["v := %s" % e, self.pick(["v", "v != null", "count(v) > 0", "v == v"])],
                                       "%v", ["v"], {"value": "v"})
        return self.refhead_rule("facts", self.pick(["by", "about"]), [], ["v := %s" % e], "v")

    # ---- rule shapes shared by the domains ---------------------------------------------------
    def token_line(self):
        return self.pick(["token := input.token.payload",
                          "[_, token, _] := io.jwt.decode(trim_prefix(input.headers.Authorization, \"Bearer \"))",
                          "token := json.unmarshal(base64url.decode(split(input.headers.Authorization, \".\")[1]))"])

    def ensure_user_roles(self):
        if not any(n == "user_roles" for n, _ in self.rules):
            self.rules.append(("user_roles", "value"))
            self.pending.append("user_roles := %s" % self.pick([
                "data.rbac.user_roles[input.user]", "object.get(data.rbac.user_roles, input.user, [])",
                "{r | some r in data.rbac.user_roles[input.user]} | {\"viewer\"}"]))

    def violation_rule(self, lines, fmt, args, details, needs_token=False):
        lines = ([self.token_line()] if needs_token else []) + lines
        k = self.n(0, 5)
        text = self.msg(fmt, args)
        if k <= 2:
            name = self.pick(["deny", "deny", "warn"])
            self.rules.append((name, "set"))
            return self.render_rule("%s contains msg" % name, lines + ["msg := %s" % text])
        if k <= 4:
            d = ", ".join("%s: %s" % (q(key), val) for key, val in sorted(details.items()))
            self.rules.append(("violation", "set"))
            return self.render_rule("violation contains {\"msg\": msg, \"details\": {%s}}" % d, lines + ["msg := %s" % text])
        # a partial object keyed by the message (collides when two messages are equal but values differ)
        self.rules.append(("findings", "obj"))
        return self.render_rule("findings[msg] := %s" % self.pick(["true", "count(msg)", q("high")]),
                                lines + ["msg := %s" % text])

    def unique(self, name):
        """Mostly a new name for a complete rule (a second definition may conflict, as in real policies)."""
        if any(n == name for n, _ in self.rules) and self.chance(0.8):
            return self.fresh(name + "_")
        return name

    def bool_rule(self, name, lines, default=False, needs_token=False):
        lines = ([self.token_line()] if needs_token else []) + lines
        text = self.render_rule(name, lines)
        if default and not any(n == name for n, _ in self.rules):
            text = "default %s := %s\n\n%s" % (name, self.pick(["false", "false", "false", "\"no\""]), text)
        self.rules.append((name, "bool"))
        return text

    def value_rule(self, name, lines, value, needs_token=False):
        lines = ([self.token_line()] if needs_token else []) + lines
        name = self.unique(name)
        self.rules.append((name, "value"))
        if not lines:
            return "%s := %s" % (name, value)
        return self.render_rule("%s := %s" % (name, value), lines)

    def refhead_rule(self, name, part, keys, lines, value):
        self.rules.append((name, "obj"))
        path = "%s.%s%s" % (name, part, "".join("[%s]" % k for k in keys))
        if self.chance(0.4):
            path += "." + self.pick(["value", "n", "info"])
        return self.render_rule("%s := %s" % (path, value), lines)

    def function_rule(self):
        """A helper with several clauses (possibly conflicting), an else chain and a default."""
        name = self.pick(["severity", "risk", "level_of"])
        if any(n == name for n, _ in self.funcs):
            name = self.fresh(name)
        arg = self.fresh("a")
        clauses = []
        conds = {"k8s": ["%s.securityContext.privileged" % arg, "endswith(%s.image, \":latest\")" % arg,
                         "not %s.resources.limits" % arg, "count(object.get(%s, \"ports\", [])) > 1" % arg],
                 "terraform": ["\"delete\" in %s.change.actions" % arg, "%s.type == \"aws_iam_policy\"" % arg,
                               "object.get(%s.change.after, \"tags\", null) == null" % arg, "%s.mode == \"data\"" % arg],
                 "rbac": ["%s == \"admin\"" % arg, "startswith(%s, \"system:\")" % arg, "%s in data.rbac.user_roles" % arg,
                          "count(%s) > 5" % arg],
                 "http": ["%s.method == \"DELETE\"" % arg, "startswith(%s.path, \"/admin\")" % arg,
                          "%s.body == null" % arg, "count(%s.query) > 1" % arg]}[self.domain]
        vals = ["\"high\"", "\"medium\"", "\"low\"", "3", "2", "1"]
        for _ in range(self.n(1, 3)):
            v = self.pick(vals)
            c = self.pick(conds)
            if self.chance(0.3):
                clauses.append(self.render_rule("%s(%s) := %s" % (name, arg, v), [c]) +
                               " else := %s" % self.pick(vals) if self.syntax not in ("v0",) else
                               self.render_rule("%s(%s) := %s" % (name, arg, v), [c]))
            else:
                clauses.append(self.render_rule("%s(%s) := %s" % (name, arg, v), [c]))
        if self.chance(0.7):
            clauses.append("default %s(_) := %s" % (name, self.pick(["\"none\"", "0", "null"])))
        self.funcs.append((name, 1))
        arg_src = {"k8s": "input.request.object.spec.containers", "terraform": "input.resource_changes",
                   "rbac": "data.rbac.user_roles[input.user]", "http": "[input]"}[self.domain]
        x = self.fresh("x")
        user = self.pick(["risks := [%s(%s) | some %s in %s]" % (name, x, x, arg_src),
                          "risks := {%s: %s(%s) | some %s in %s}" % ("sprintf(\"%%v\", [%s])" % x if self.domain != "rbac" else x,
                                                                    name, x, x, arg_src),
                          "risks := {%s(%s) | some %s in %s}" % (name, x, x, arg_src)])
        self.rules.append(("risks", "value"))
        return "\n\n".join(clauses) + "\n\n" + user

    def decision_rule(self):
        """An else chain over earlier rules."""
        bools = [n for n, k in self.rules if k == "bool"]
        sets = [n for n, k in self.rules if k == "set"]
        conds = ["%s" % b for b in bools] + ["count(%s) > 0" % s for s in sets] + \
                {"k8s": ["input.request.dryRun", "input.request.operation == \"DELETE\""],
                 "terraform": ["count(input.resource_changes) == 0", "input.terraform_version < \"1.0\""],
                 "rbac": ["input.user == \"\"", "input.context.mfa == true"],
                 "http": ["input.method == \"HEAD\"", "input.path == \"/\""]}[self.domain]
        steps = [(self.pick(["\"allow\"", "{\"allowed\": true}", "1"]), self.pick(conds))]
        for _ in range(self.n(1, 3)):
            steps.append((self.pick(["\"deny\"", "{\"allowed\": false, \"reason\": \"x\"}", "2", "null", "\"review\""]),
                          self.pick(conds)))
        if self.chance(0.6):
            steps.append((self.pick(["\"deny\"", "false", "0"]), None))
        v0 = self.syntax == "v0"
        parts = []
        for i, (value, cond) in enumerate(steps):
            head = "decision := %s" % value if i == 0 else "else := %s" % value
            if cond is None:
                parts.append(head)
            elif v0:
                parts.append("%s {\n\t%s\n}" % (head, cond))
            elif self.chance(0.5):
                parts.append("%s if %s" % (head, cond))
            else:
                parts.append("%s if {\n\t%s\n}" % (head, cond))
        name = self.unique("decision")
        self.rules.append((name, "value"))
        return name + " ".join(parts)[len("decision"):]

    def summary_rule(self):
        sets = [n for n, k in self.rules if k == "set"]
        if not sets:
            return None
        s = self.pick(sets)
        return self.pick([
            lambda: self.value_rule("summary", [], "{\"count\": count(%s), \"sorted\": sort([m | some m in %s])}" % (s, s)),
            lambda: self.bool_rule("allow", ["count(%s) == 0" % s], default=True),
            lambda: self.bool_rule("ok", ["every m in %s {\n\t\tis_string(m)\n\t}" % s]),
            lambda: self.value_rule("messages", [], "concat(\"\\n\", sort([m | some m in %s]))" % s
                                    if s != "violation" else "sort([v.msg | some v in violation])"),
            lambda: self.refhead_rule("report", "by_domain", [], ["n := count(%s)" % s], "n") if self.chance(0.5) else
            self.value_rule("total", [], "sum([1 | some _ in %s])" % s),
        ])()

    # ---- tests: rules evaluated under `with` ---------------------------------------------------
    def test_rule(self):
        """A test-like rule: an earlier rule evaluated with input, data, a function or a builtin replaced."""
        names = [n for n, k in self.rules if k in ("bool", "set", "value", "obj")]
        if not names:
            return None
        target = self.pick(names)
        kind = dict(self.rules)[target]
        doc = {"k8s": self.k8s_input, "terraform": self.terraform_input, "rbac": self.rbac_input,
               "http": self.http_input}[self.domain]
        replacement = self.pick([
            lambda: "input as %s" % dump_json(doc()),
            lambda: "input as %s" % self.pick(["{}", "null", "[]", "{\"request\": {}}"]),
            lambda: "%s as %s" % (self.path(self.pick(["str", "num", "obj", "arr"])).replace("[0]", ""),
                                  self.pick(["\"x\"", "0", "{}", "[]", "null", q(self.pick(USERS))])),
            lambda: "%s as %s" % (self.pick(["count", "lower", "startswith", "concat", "sprintf", "to_number", "glob.match",
                                             "regex.match", "object.get", "time.parse_rfc3339_ns", "units.parse_bytes"]),
                                  self.pick(["1", "true", "\"mocked\"", "null"])),
            lambda: "%s as %s" % self.pick([("count", "product"), ("lower", "upper"), ("startswith", "endswith"),
                                            ("to_number", "count"), ("sum", "max"), ("concat", "sprintf")]),
            lambda: "%s as %s" % (self.pick([n for n, _ in self.funcs] or ["trusted_image"]), self.pick(["true", "\"none\"", "3"]))
            if self.funcs or self.domain == "k8s" else "input as {}",
        ])()
        check = {"bool": target, "set": self.pick(["count(%s) == 0" % target, "count(%s) > 0" % target, target]),
                 "value": self.pick([target, "%s == %s" % (target, target)]),
                 "obj": self.pick([target, "count(%s) >= 0" % target])}[kind]
        name = self.unique("test_" + target.replace("_", "")[:12])
        self.rules.append((name, "bool"))
        lines = ["%s with %s" % (check, replacement)]
        if self.chance(0.3):
            lines.append("r := %s with %s" % (target, replacement))
        return self.render_rule(name, lines)

    # ---- the helper package -----------------------------------------------------------------
    def lib_module(self):
        alias = self.pick(["lib", "util", "h", self.domain])
        pkg = "lib." + self.domain
        self.lib = (alias, [])
        body = {"k8s": ["containers := array.concat(input.request.object.spec.containers,\n\tobject.get(input.request.object.spec, \"initContainers\", []))",
                        "is_exempt if input.request.namespace in {\"kube-system\"}",
                        "image_registry(img) := r if {\n\tparts := split(img, \"/\")\n\tcount(parts) > 1\n\tr := parts[0]\n} else := \"docker.io\""],
                "terraform": ["changes := [rc | some rc in input.resource_changes; rc.mode == \"managed\"]",
                              "by_type[t] contains rc.address if {\n\tsome rc in input.resource_changes\n\tt := rc.type\n}",
                              "tags(rc) := object.get(rc, [\"change\", \"after\", \"tags\"], {})"],
                "rbac": ["roles_of(u) := object.get(data.rbac.user_roles, u, [])",
                         "has_role(u, r) if r in roles_of(u)",
                         "is_admin if has_role(input.user, \"admin\")"],
                "http": ["path_parts := [p | some p in split(input.path, \"/\"); p != \"\"]",
                         "bearer := t if {\n\tstartswith(input.headers.Authorization, \"Bearer \")\n\tt := substring(input.headers.Authorization, 7, -1)\n}",
                         "header(name) := v if {\n\tsome k, v in input.headers\n\tlower(k) == lower(name)\n}"]}[self.domain]
        text = "package %s\n\n%s%s\n" % (pkg, "import rego.v1\n\n" if self.chance(0.3) else "", "\n\n".join(body))
        imp = "import data.%s as %s" % (pkg, alias) if self.chance(0.7) or alias != self.domain else "import data.lib.%s" % self.domain
        return text, imp

    def lib_use(self):
        a = self.lib[0]
        return {"k8s": [lambda: self.violation_rule([self.each("c", "%s.containers" % a),
                                                     "%s.image_registry(c.image) != \"registry.corp.io\"" % a, "not %s.is_exempt" % a],
                                                    "registry %s not allowed", ["%s.image_registry(c.image)" % a], {})],
                "terraform": [lambda: self.refhead_rule("report", "types", ["t"], ["some t, addrs in %s.by_type" % a], "count(addrs)"),
                              lambda: self.violation_rule(["some rc in %s.changes" % a, "count(%s.tags(rc)) == 0" % a],
                                                          "%s untagged", ["rc.address"], {})],
                "rbac": [lambda: self.bool_rule("allow", ["%s.is_admin" % a], default=True),
                         lambda: self.value_rule("my_roles", [], "%s.roles_of(input.user)" % a)],
                "http": [lambda: self.value_rule("who", [], "{\"parts\": %s.path_parts, \"ct\": %s.header(\"content-type\")}" % (a, a)),
                         lambda: self.bool_rule("has_bearer", ["%s.bearer != \"\"" % a])]}[self.domain]

    # ---- broken on purpose --------------------------------------------------------------------
    def breakage(self):
        return self.pick([
            "bad contains msg if {\n\tsome c in input.items\n\tc.x\n}",                       # unsafe var in head
            "bad := v if {\n\tinput.x\n} else := w",                                          # unsafe in else
            "default allow := false\n\ndefault allow := true",                                # conflicting defaults
            "chk(x) := chk2(x)\n\nchk2(x) := chk(x)\n\nbad := chk(1)",                        # recursion through functions
            "helper(a, b) := a\n\nbad := helper(1)",                                          # wrong arity
            "bad if {\n\tinput := {\"user\": \"x\"}\n\tinput.user\n}",                        # shadowed input
            "bad if {\n\tdata := 1\n}",                                                       # shadowed data
            "bad if {\n\tsome data in [1]\n\tdata\n}",
            "bad[msg] {\n\tmsg := \"v0 in a v1 module\"\n}",                                  # v0 rule in a v1 module
            "bad contains msg {\n\tmsg := 1\n}",                                              # contains without if
            "bad := [y | some x in [1, 2]; y := {z | z := x + \"s\"}]",                       # type error, nested
            "bad := [[a | a := b[_]] | b := [\"x\"]; count(b) > \"1\"]",
            "bad := count({k: v | some k, v in {\"a\": 1}; v == \"1\"}, 1)",
            "default bad(_) := 1\n\nbad(x) := x if x > 1\n\ndefault bad(_) := 2",
            "bad.a := 1\n\nbad.a.b := 2",                                                     # ref head conflict
            "bad if {\n\tevery x in input.xs {\n\t\ty := x\n\t}\n}",
            "bad := input.x with input as 1 with data.p.bad as 2",
            "bad contains x if {\n\tx := [1][\"0\"]\n}",
            "bad := sprintf(\"%v\")",
            "bad := time.parse_rfc3339_ns(1)",
            "bad := {\"a\": x | some x in [1, 2]}",                                           # conflicting keys
            "sev(x) := 1 if x > 0\n\nsev(x) := 2 if x > 1\n\nbad := sev(5)",                # conflicting outputs
            "bad[msg] if {\n\tsome msg in [\"a\", \"b\"]\n}",                               # a partial object, true
            "input := 1",                                                                 # rules named like roots
            "data := {\"a\": 1}",
            "count := 1\n\nbad := count([1])",
            "bad if {\n\tsome i\n\tinput.request.object.spec.containers[i].x\n\ti > \"0\"\n}",
            "bad if not startswith(input.path, 1)",
            "bad := x if {\n\tx := y\n\ty := x\n}",
            "bad contains x if {\n\tx := [y | y := input[_]]\n} else := 1",
            "import future.keywords.in",                                                   # an import after rules
            "bad := data.lib.missing.fn(1)",
            "bad := [x | x := 1; x := 2]",
            "default bad := input.x",
            "bad if {\n\tevery x in [1] {\n\t\tx > \"a\"\n\t}\n}",
            "bad := object.get(input, [\"a\", \"b\"])",
            "bad := json.filter({\"a\": 1}, \"a\")",
        ])

    def duplicate_import(self, text, imp):
        alias = imp.split(" as ")[-1] if " as " in imp else imp.split(".")[-1]
        return text + "%s\n" % self.pick(["import data.lib.other as %s" % alias, imp, "import input.request as %s" % alias,
                                           "import data.lib as lib\nimport data.lib as lib"])

    # ---- the case ------------------------------------------------------------------------------
    def module(self):
        self.pending = []
        modules = {}
        imports = []
        if self.chance(0.3):
            lib_text, imp = self.lib_module()
            modules["lib.rego"] = lib_text
            imports.append(imp)
        if self.syntax == "rego.v1":
            imports.insert(0, "import rego.v1")
        elif self.syntax in ("future", "mixed") or (self.syntax == "v0" and self.chance(0.5)):
            imports.insert(0, self.pick(["import future.keywords", "import future.keywords.in\nimport future.keywords.if\n"
                                         "import future.keywords.contains", "import future.keywords.every\nimport future.keywords.in"]))
        rule_fn = {"k8s": self.k8s_rule, "terraform": self.terraform_rule, "rbac": self.rbac_rule, "http": self.http_rule}[self.domain]
        rules = []
        if self.domain == "k8s" and self.chance(0.5):
            rules.append("trusted_image(img) if {\n\tsome reg in data.k8s.registries\n\tstartswith(img, reg)\n}\n\n"
                         "trusted_image(img) if glob.match(\"registry.corp.io/**\", [\"/\"], img)")
        elif self.domain == "k8s":
            rules.append("trusted_image(img) := false if img == \"\" else := true if {\n\tsome reg in data.k8s.registries\n"
                         "\tstartswith(img, reg)\n} else := false")
        for _ in range(self.n(2, 5)):
            rules.append(rule_fn() if self.chance(0.6) else self.builtin_rule())
        if self.lib and self.chance(0.8):
            rules.append(self.pick(self.lib_use())())
        for _ in range(self.n(0, 2)):
            r = self.summary_rule() if self.chance(0.6) else self.decision_rule()
            if r:
                rules.append(r)
        for _ in range(self.n(0, 2) if self.chance(0.35) else 0):
            r = self.test_rule()
            if r:
                rules.append(r)
        rules = self.pending + rules
        head = "package p\n\n" + "".join(i + "\n" for i in imports) + ("\n" if imports else "")
        if self.chance(0.15):
            head = "# METADATA\n# title: %s policy\npackage p\n\n" % self.domain + "".join(i + "\n" for i in imports) + ("\n" if imports else "")
        text = head + "\n\n".join(rules) + "\n"
        if self.chance(0.1):
            if self.lib and self.chance(0.3):
                text = self.duplicate_import(head, imports[-1]) + "\n" + "\n\n".join(rules) + "\n"
            else:
                text += "\n" + self.breakage() + "\n"
        modules["p.rego"] = text
        return modules

    def query(self):
        names = sorted({n for n, _ in self.rules})
        k = self.n(0, 11)
        if k < 4 or not names:
            return "data.p"
        if k < 7:
            return "data.p." + self.pick(names)
        sets = sorted({n for n, kind in self.rules if kind == "set"})
        if k == 7 and sets:
            s = self.pick(sets)
            return self.pick(["x := data.p.%s; count(x) > 0" % s, "x := data.p.%s; n := count(x)" % s,
                              "some m in data.p.%s; m == m" % s])
        if k == 8:
            a, b = self.pick(names), self.pick(names)
            return "a := data.p.%s; b := data.p.%s" % (a, b)
        if k == 9:
            return "r := data.p; ks := object.keys(r)"
        if k == 10:
            return "data.p.%s with input as %s" % (self.pick(names), self.pick(["{}", "null", "[]", "{\"user\": \"alice\"}"]))
        return "[x | x := data.p.%s[_]]" % self.pick(names) if sets else "data.p"

    def documents(self):
        make = {"k8s": (self.k8s_input, self.k8s_data), "terraform": (self.terraform_input, self.terraform_data),
                "rbac": (self.rbac_input, self.rbac_data), "http": (self.http_input, self.http_data)}[self.domain]
        data = make[1]()
        inp = make[0]() if self.chance(0.95) else None
        return data, inp


def generate(seed):
    g = PolicyGen(seed)
    data, inp = g.documents()
    modules = g.module()
    case = {"id": "q%d-%d" % (VERSION, seed), "seed": seed, "modules": modules, "data": dump_json(data),
            "query": g.query()}
    if inp is not None:
        case["input"] = dump_json(inp)
    return case
