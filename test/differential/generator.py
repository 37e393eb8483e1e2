"""A seeded generator of random Rego programs with their input and data.

generate(seed) -> case dict:
    {"id": "v<VERSION>-<seed>", "seed": seed, "modules": {"p.rego": text, ...}, "data": JSON text,
     "input": JSON text (absent: no input), "query": "data.p"}

The same seed gives the same case (random.Random with an integer seed is stable across
Python 3 versions). Programs mix every kind of rule (complete, partial set and object rules,
multi-level refs, functions, defaults, else chains, incremental definitions), comprehensions,
`with`, `every`, `some ... in`, `not`, builtins with arguments of every type, numbers of every
spelling, and a share of deliberately broken programs (unsafe variables, type errors, conflicts,
recursion, parse errors) so that compile errors are compared too.

Terms are generated for a wanted type ("num", "str", "bool", "arr", "set", "obj", "coll", None for
any), and variables remember the type of what bound them, so most programs pass the type checker
and evaluate; `sloppy` cases pick arguments of any type.
"""

import json
import os
import random

# Bumped whenever a seed's program changes, so recorded ids (v<version>-<seed>) stay unique.
VERSION = 3

_HERE = os.path.dirname(os.path.abspath(__file__))

# Builtin declarations as `gavel capabilities --current` prints them (builtins.json), without the
# non-deterministic ones, the operators (generated as infix terms) and print (generated apart).
with open(os.path.join(_HERE, "builtins.json"), encoding="utf-8") as _f:
    BUILTINS = json.load(_f)
BUILTINS_BY_NAME = {b["name"]: b for b in BUILTINS}

# Builtins whose random arguments would make huge results or long runs, or whose results are
# large documents (rare, so they do not crowd out the rest).
_RARE = {"net.cidr_expand", "numbers.range", "numbers.range_step", "strings.render_template",
         "graphql.parse_and_verify", "graphql.parse", "graphql.parse_query", "graphql.parse_schema",
         "graphql.is_valid", "graphql.schema_is_valid", "crypto.x509.parse_and_verify_certificates",
         "crypto.x509.parse_and_verify_certificates_with_options", "rego.parse_module",
         "crypto.x509.parse_certificates", "crypto.x509.parse_certificate_request",
         "crypto.x509.parse_keypair", "crypto.x509.parse_rsa_private_key", "crypto.parse_private_keys",
         "io.jwt.encode_sign", "io.jwt.encode_sign_raw", "io.jwt.decode_verify", "all", "any",
         "cast_array", "cast_boolean", "cast_null", "cast_object", "cast_set", "cast_string", "set_diff",
         "re_match", "net.cidr_overlap"}

NUMBER_SPELLINGS = [
    "0", "1", "2", "3", "7", "10", "-1", "-2", "100", "1000", "-0", "0.0", "1.0", "2.0", "3.0", "-1.0",
    "0.1", "0.2", "0.3", "0.5", "1.5", "2.5", "-2.5", "-0.5", "3.14159", "0.25", "-6", "1e3", "1E3",
    "1e-3", "2e2", "1.5e2", "1e0", "0.001", "1e-06", "123.456", "99.99", "1e21", "1e-7", "0.1e1",
    "12345678901234567890", "-9223372036854775808", "9223372036854775807", "18446744073709551616",
    "4.5", "6", "1000000", "0.30000000000000004", "1.1", "2.2", "3.3", "0.7", "100.0", "5e-1", "1e10",
    "999999999999999999999", "33.333", "0.000001", "1e100", "7.0", "-3", "-0.1", "2.675", "1.005",
    "1.5e300", "-1e-5", "0.05", "256", "65536", "4294967296", "1e6", "1e5", "123456.789e3",
]
SMALL_NUMBERS = ["0", "1", "2", "3", "-1", "4", "5", "10", "1.5", "0.5", "2.0", "-2", "1.0", "0.1", "3.5"]

# Rego string bodies (escapes as written in Rego and JSON).
STRINGS = [
    "", "a", "b", "abc", "foo", "bar", "foo.bar", "a,b,c", "A-b_C", "hello world", "  pad  ", "1", "1.5",
    "true", "null", "x", "héllo", "ü", "😀", "日本", "a\\nb", "%v", "%d", "%s-%v", "foo*", "*.com",
    "[a-z]+", "^a", "a|b", "(a)(b)?", "\\\\d+", "10Ki", "1.5G", "100m", "1e3", "0x1F", "1_000",
    "2024-01-02T03:04:05Z", "2006-01-02", "1h2m", "10.0.0.0/24", "10.0.0.1", "1.2.3", "v1.2.3",
    "eyJhIjoxfQ", "aGVsbG8=", "{\\\"a\\\": 1}", "[1, 2]", "{{.x}}", "a/b/c", "/a/b", "k=v&x=1",
    "https://example.com/p?q=1#f", "TRUE", "-0", "0.30000000000000004", "+1", " 1", "1e400", "\\t",
    "\\u00e9", "a\\\\b", "\\\"q\\\"", "ab", "ba", "aaa", "-", "1.0", "007", "0.1",
]

SPECIAL_STRINGS = {
    "regex": ["[a-z]+", "a(b)?", "^x", "(", "", ".", "\\\\d", "a|b|", "[", "(?i)A", "a{2}", "\\\\bfoo", "(a)|(b)",
              "^$", "b*", "x*", "\\\\s+", "(?P<n>a)"],
    "glob": ["*.com", "a.*", "{a,b}", "[a-c]", "**", "test\\\\", "*", "?", "a", "[!a]", "{", "\\\\*"],
    "time": ["2024-01-02T03:04:05Z", "2006-01-02T15:04:05Z07:00", "1h", "10m30s", "2024-02-30T00:00:00Z",
             "Mon Jan _2 15:04:05 2006", "RFC3339", "1.5h", "-1s", "2024-01-02", "2006-01-02", "UTC",
             "America/New_York", "1ms", "2024-01-02T03:04:05.123456789+01:00", "Local", "15:04"],
    "units": ["10Ki", "1.5G", "100m", "1e3", "10", "1KB", "0.5Mi", "x", "", "1E", "5 M", "1.5", "2m", "1Gi",
              "1e-3", "-1K", ".5"],
    "json": ["{\\\"a\\\": 1}", "[1, 2.0, 1e3]", "1.50", "\\\"s\\\"", "{", "null", "[1,", "1e400", "0.1", "1E2",
             "-0", "{\\\"a\\\": [1, {\\\"b\\\": 2}]}", "true", " 3 "],
    "yaml": ["a: 1", "- 1\\n- 2", "x: [1, 2.5]", "a: {b: c}", ": :", "1.0", "~", "a: 1e3", "- 0x10", "yes",
             "a: [1, 2", "---\\na: 1\\n---\\nb: 2"],
    "base64": ["aGVsbG8=", "aGVsbG8", "!!", "", "eyJhIjoxfQ", "YQ==", "YQ", "_-8="],
    "net": ["10.0.0.0/24", "10.0.0.1", "192.168.0.0/16", "::1", "2001:db8::/32", "x", "10.0.0.0/33",
            "10.0.0.0/8", "192.168.1.1/32", "0.0.0.0/0"],
    "semver": ["1.2.3", "1.2.3-alpha", "v1.0.0", "1.2", "2.0.0+build", "1.10.0", "1.2.3-alpha.1", "1.2.3-1"],
    "uri": ["https://example.com/p?q=1#f", "a b", "%zz", "mailto:x@y", "", "a=1&b=2&a=3", "x%20y", "+"],
    "jwt": ["eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.x", "a.b.c", "x", "",
            "eyJhbGciOiJub25lIn0.eyJhIjoxfQ."],
    "hex": ["48656c6c6f", "zz", "", "abc", "0a"],
    "sprintf": ["%v", "%d", "%s", "%.2f", "%q", "%x", "%v-%v", "%e", "%5d", "%08.3f", "%T", "%g", "%v %v", "%%",
                "%b", "%o", "%X", "%6.2f|%-4d|", "%t", "%c", "%U", "%+d", "%.3s"],
    "uuid": ["00000000-0000-0000-0000-000000000000", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "x"],
    "template": ["{{.x}}", "{{range .xs}}{{.}}{{end}}", "{{", "a{{.a}}b", "{{.x | printf \\\"%v\\\"}}"],
    "format_int": [],
}

INPUT_KEYS = ["a", "b", "c", "n", "s", "arr", "obj", "one", "xs", "m"]
DATA_KEYS = ["x", "y", "z", "list", "cfg", "num"]
_RULE_NAMES = ["r", "s", "t", "u", "v", "w", "allow", "deny", "q", "o"]
_FUNC_NAMES = ["f", "g", "h"]

# Decl types -> generator types.
def _kind_of(decl):
    if decl is None:
        return None
    t = decl.get("type")
    return {"number": "num", "string": "str", "boolean": "bool", "array": "arr", "set": "set",
            "object": "obj", "null": "null"}.get(t)


def _family(name):
    for prefix, fam in (("regex.", "regex"), ("re_match", "regex"), ("glob.", "glob"), ("time.", "time"),
                        ("units.", "units"), ("json.", "json"), ("to_number", "json"), ("yaml.", "yaml"),
                        ("base64", "base64"), ("net.", "net"), ("semver.", "semver"), ("uri.", "uri"),
                        ("urlquery.", "uri"), ("io.jwt.", "jwt"), ("hex.", "hex"), ("sprintf", "sprintf"),
                        ("uuid.", "uuid"), ("strings.render_template", "template")):
        if name.startswith(prefix):
            return fam
    return None


class Draws:
    """Random draws shared by the generation styles; a style keeps its random.Random in self.rng."""

    def chance(self, p):
        return self.rng.random() < p

    def pick(self, xs):
        return self.rng.choice(xs)

    def n(self, a, b):
        return self.rng.randint(a, b)


class Gen(Draws):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.counter = 0
        self.rules = []   # (name, kind) of package p's rules so far; kind complete/set/obj/multi/deep
        self.funcs = {}   # name -> arity
        self.depth = 0
        # Chance that a builtin argument is of any type (type errors at compile or at run time).
        self.sloppy = self.pick([0.0, 0.0, 0.02, 0.05, 0.15])

    def fresh(self):
        self.counter += 1
        return "x%d" % self.counter

    # ---- JSON values (input and data) ----------------------------------------------------
    def json_number(self):
        return RawNumber(self.pick(NUMBER_SPELLINGS if self.chance(0.5) else SMALL_NUMBERS))

    def json_string(self):
        return json.loads('"%s"' % self.pick(STRINGS))

    def json_value(self, depth=0):
        k = self.rng.randrange(10 if depth < 2 else 6)
        if k == 0:
            return None
        if k == 1:
            return self.chance(0.5)
        if k in (2, 3):
            return self.json_number()
        if k in (4, 5):
            return self.json_string()
        if k in (6, 7):
            return [self.json_value(depth + 1) for _ in range(self.rng.randrange(4))]
        return {self.pick(["a", "b", "c", "k", "1", "2", "foo", ""]): self.json_value(depth + 1)
                for _ in range(self.rng.randrange(4))}

    def json_document(self, keys):
        doc = {}
        for key in keys:
            if not self.chance(0.75):
                continue
            if key == "one":
                doc[key] = RawNumber("1")
            elif key in ("xs", "list"):
                doc[key] = [self.json_value(2) if self.chance(0.3) else self.json_number()
                            for _ in range(self.rng.randrange(5))]
            elif key in ("n", "num"):
                doc[key] = self.json_number()
            elif key == "s":
                doc[key] = self.json_string()
            elif key in ("obj", "cfg", "m"):
                doc[key] = {self.pick(["a", "b", "c", "1", "k"]): self.json_value(1)
                            for _ in range(self.rng.randrange(4))}
            else:
                doc[key] = self.json_value()
        return doc

    # ---- scalars -------------------------------------------------------------------------
    def number(self):
        return self.pick(NUMBER_SPELLINGS if self.chance(0.6) else SMALL_NUMBERS)

    def string(self):
        return '"%s"' % self.pick(STRINGS)

    def scalar(self):
        k = self.rng.randrange(10)
        if k < 4:
            return self.number()
        if k < 8:
            return self.string()
        if k < 9:
            return self.pick(["true", "false"])
        return "null"

    def var_of(self, scope, kind):
        vs = sorted(v for v, t in scope.items() if kind is None or t == kind or (t is None and self.chance(0.1)))
        return self.pick(vs) if vs else None

    # ---- references ----------------------------------------------------------------------
    def input_ref(self, kind=None):
        if kind == "num":
            return self.pick(["input.n", "input.one", "input.n", "input.xs[0]"])
        if kind == "str":
            return self.pick(["input.s", "input.s", "input.obj.a", "input.a"])
        if kind in ("arr", "coll"):
            return self.pick(["input.xs", "input.arr", "input.xs"])
        if kind == "obj":
            return self.pick(["input.obj", "input.m", "input"])
        r = "input." + self.pick(INPUT_KEYS)
        if self.chance(0.3):
            r += self.pick(["[0]", "[1]", ".a", ".b", '["1"]', "[_]", "[1.0]", ".k", "[-1]"])
        return r

    def data_ref(self, kind=None):
        if kind == "num":
            return "data.d.num"
        if kind in ("arr", "coll"):
            return "data.d.list"
        if kind == "obj":
            return self.pick(["data.d.cfg", "data.d"])
        r = "data.d." + self.pick(DATA_KEYS)
        if self.chance(0.3):
            r += self.pick(["[0]", ".a", "[_]", ".b", '["1"]'])
        return r

    def rule_ref(self, scope, kind=None):
        if kind in ("set", "coll"):
            cands = [r for r in self.rules if r[1] == "set"]
        elif kind == "obj":
            cands = [r for r in self.rules if r[1] in ("obj", "multi", "deep")]
        elif kind is None:
            cands = list(self.rules)
        elif kind == "coll":
            cands = [r for r in self.rules if r[1] != "complete"]
        else:
            cands = [r for r in self.rules if r[1] == "complete"]
        if not cands:
            return None
        name, rkind = self.pick(cands)
        if kind is None and rkind in ("set", "obj", "multi") and self.chance(0.4):
            v = self.var_of(scope, None)
            return "%s[%s]" % (name, v if v and self.chance(0.4) else self.scalar())
        if kind is None and rkind == "deep" and self.chance(0.4):
            return name + self.pick([".a", ".b", ".a.b", "[\"a\"]"])
        return name

    # ---- terms ---------------------------------------------------------------------------
    def term(self, scope, depth=0, kind=None):
        if kind == "num":
            return self.num_term(scope, depth)
        if kind == "str":
            return self.str_term(scope, depth)
        if kind == "bool":
            return self.pick(["true", "false"]) if self.chance(0.7) else self.call_returning("bool", scope, depth)
        if kind in ("arr", "set", "obj", "coll"):
            return self.collection(scope, depth, kind)
        if kind == "null":
            return "null"
        if depth > 3:
            v = self.var_of(scope, None)
            return v if v and self.chance(0.5) else self.scalar()
        k = self.rng.randrange(16)
        if k < 3:
            return self.scalar()
        if k < 5:
            v = self.var_of(scope, None)
            if v:
                return v
        if k == 5:
            return self.input_ref()
        if k == 6:
            return self.data_ref()
        if k == 7:
            return self.arith(scope, depth)
        if k == 8:
            return self.collection(scope, depth)
        if k in (9, 14):
            return self.builtin_call(scope, depth)
        if k == 10:
            r = self.rule_ref(scope)
            if r:
                return r
        if k == 11:
            c = self.func_call(scope, depth)
            if c:
                return c
        if k == 12:
            return self.set_op(scope, depth)
        if k == 13:
            return self.comprehension(scope, depth)
        return self.str_term(scope, depth)

    def num_term(self, scope, depth):
        k = self.rng.randrange(9 if depth < 3 else 3)
        if k < 2:
            return self.number()
        if k == 2:
            v = self.var_of(scope, "num")
            return v if v else self.number()
        if k == 3:
            return self.input_ref("num") if self.chance(0.7) else self.data_ref("num")
        if k == 4:
            return "(%s)" % self.arith(scope, depth)
        if k == 5:
            return "%s(%s)" % (self.pick(["abs", "round", "ceil", "floor"]), self.num_term(scope, depth + 1))
        if k == 6:
            return "%s([%s])" % (self.pick(["sum", "max", "min", "product", "count"]),
                                 ", ".join(self.num_term(scope, depth + 1) for _ in range(self.rng.randrange(1, 4))))
        if k == 7:
            return self.call_returning("num", scope, depth)
        return self.arith(scope, depth) if self.chance(0.5) else self.number()

    def str_term(self, scope, depth):
        k = self.rng.randrange(7 if depth < 3 else 2)
        if k < 2:
            return self.string()
        if k == 2:
            v = self.var_of(scope, "str")
            return v if v else self.string()
        if k == 3:
            return self.input_ref("str")
        if k < 6:
            return self.call_returning("str", scope, depth)
        return self.string()

    def arith(self, scope, depth):
        op = self.pick(["+", "-", "*", "/", "%", "+", "-", "*"])
        text = "%s %s %s" % (self.num_term(scope, depth + 1), op, self.num_term(scope, depth + 1))
        return "(%s)" % text if self.chance(0.2) else text

    def set_op(self, scope, depth):
        op = self.pick(["|", "&", "-"])
        text = "%s %s %s" % (self.set_term(scope, depth + 1), op, self.set_term(scope, depth + 1))
        return text if depth == 0 else "(%s)" % text

    def set_term(self, scope, depth):
        k = self.rng.randrange(5)
        if k == 0:
            return "{%s}" % ", ".join(self.scalar() for _ in range(self.rng.randrange(1, 4)))
        if k == 1:
            r = self.rule_ref(scope, "set")
            if r:
                return r
        if k == 2 and depth < 3:
            v = self.fresh()
            return "{%s | some %s in %s}" % (v, v, self.collection(scope, depth + 1))
        if k == 3:
            v = self.var_of(scope, "set")
            if v:
                return v
        return self.pick(["set()", "{1, 2}", "{\"a\"}", "{1, \"a\", [2]}", "{2.0, 3}"])

    def collection(self, scope, depth=0, kind=None):
        if depth > 3:
            return self.pick(["[]", "[1, 2]", "{\"a\": 1}", "set()"])
        if kind == "arr":
            k = self.pick([0, 3, 6, 7, 8, 9])
        elif kind == "set":
            return self.set_term(scope, depth) if self.chance(0.6) else "{%s}" % ", ".join(
                self.term(scope, depth + 1) for _ in range(self.rng.randrange(1, 4)))
        elif kind == "obj":
            k = self.pick([2, 2, 3, 4, 5, 7])
        else:
            k = self.rng.randrange(10)
        if k == 0:
            return "[%s]" % ", ".join(self.term(scope, depth + 1) for _ in range(self.rng.randrange(4)))
        if k == 1:
            return "{%s}" % ", ".join(self.term(scope, depth + 1) for _ in range(self.rng.randrange(1, 4)))
        if k == 2:
            return "{%s}" % ", ".join("%s: %s" % (self.scalar(), self.term(scope, depth + 1))
                                      for _ in range(self.rng.randrange(4)))
        if k == 3:
            return self.input_ref(kind or "coll") if self.chance(0.6) else self.input_ref()
        if k == 4:
            return self.data_ref(kind or "coll") if self.chance(0.6) else self.data_ref()
        if k == 5:
            r = self.rule_ref(scope, kind if kind == "obj" else "coll")
            if r:
                return r
        if k == 6:
            return self.pick(["numbers.range(1, 3)", "split(\"a,b,c\", \",\")", "[1, 2.5, \"a\"]",
                              "array.concat([1], [2.0])", "[-1, 0, 1]", "[[1, 2], [3]]"])
        if k == 7:
            return self.comprehension(scope, depth, "obj" if kind == "obj" else None)
        if k == 8:
            v = self.var_of(scope, kind or "arr")
            if v:
                return v
        return "[%s]" % ", ".join(self.number() for _ in range(self.rng.randrange(1, 4)))

    def comprehension(self, scope, depth=0, kind=None):
        if self.depth > 2 or depth > 3:
            return "[]"
        self.depth += 1
        v = self.fresh()
        inner = dict(scope)
        coll = self.collection(scope, depth + 1)
        if self.chance(0.75):
            body = ["some %s in %s" % (v, coll)]
            inner[v] = None
        else:
            t = self.pick(["num", "str", None])
            body = ["%s := %s" % (v, self.term(scope, depth + 1, t))]
            inner[v] = t
        if self.chance(0.5):
            body.append(self.condition(inner, depth + 1))
        if kind == "obj":
            k = 2
        else:
            k = self.rng.randrange(3)
        if k == 0:
            text = "[%s | %s]" % (self.head_term(inner), "; ".join(body))
        elif k == 1:
            text = "{%s | %s}" % (self.head_term(inner), "; ".join(body))
        else:
            text = "{%s: %s | %s}" % (self.head_term(inner), self.head_term(inner), "; ".join(body))
        self.depth -= 1
        return text

    def head_term(self, scope, kind=None):
        v = self.var_of(scope, kind)
        if v and self.chance(0.7):
            if self.chance(0.25) and scope.get(v) == "num":
                return "(%s %s %s)" % (v, self.pick(["+", "*", "-"]), self.number())
            return v
        return parenthesized(self.term(scope, 2, kind))

    # ---- calls ---------------------------------------------------------------------------
    def pick_builtin(self, kind=None):
        cands = [b for b in BUILTINS if kind is None or _kind_of(b.get("result")) == kind]
        b = self.pick(cands)
        if b["name"] in _RARE and not self.chance(0.15):
            b = self.pick(cands)
        return b

    def call_returning(self, kind, scope, depth):
        if depth > 3:
            return {"num": self.number(), "str": self.string(), "bool": "true"}.get(kind, "null")
        return self.builtin_call(scope, depth, self.pick_builtin(kind))

    def builtin_call(self, scope, depth, b=None):
        if b is None:
            b = self.pick_builtin()
        name = b["name"]
        if name in ("numbers.range", "numbers.range_step"):
            args = [self.pick(SMALL_NUMBERS + ["-3", "2.5", "\"1\""]) for _ in b["args"]]
        elif name == "net.cidr_expand":
            args = ['"%s"' % self.pick(["10.0.0.0/30", "192.168.1.1/32", "10.0.0.0/31", "::1/127", "x", "1.2.3.4"])]
        else:
            args = [self.term(scope, depth + 1) if self.chance(self.sloppy) else
                    self.typed_term(a, scope, depth + 1, name) for a in b["args"]]
        if self.chance(0.005):
            args.append(self.scalar())  # an arity mismatch
        return "%s(%s)" % (name, ", ".join(args))

    def typed_term(self, t, scope, depth, fname=""):
        ty = t.get("type")
        if ty == "any" and "of" in t:
            return self.typed_term(self.pick(t["of"]), scope, depth, fname)
        if depth > 4:
            return self.scalar() if ty not in ("array", "set", "object") else {"array": "[]", "set": "set()", "object": "{}"}[ty]
        if ty == "number":
            if fname in ("format_int",):
                return self.pick(["2", "8", "10", "16", "3"]) if self.chance(0.5) else self.num_term(scope, depth)
            if fname in ("substring", "array.slice", "indexof_n", "strings.replace_n", "split_n", "regex.find_n",
                         "regex.find_all_string_submatch_n", "time.add_date", "bits.lsh", "bits.rsh"):
                return self.pick(["0", "1", "2", "-1", "3", "1.0", "10", "1.5"])
            return self.num_term(scope, depth)
        if ty == "string":
            return self.string_for(fname, scope, depth)
        if ty == "boolean":
            return self.pick(["true", "false"])
        if ty == "null":
            return "null"
        if ty == "array":
            if "static" in t:
                return "[%s]" % ", ".join(self.typed_term(e, scope, depth + 1, fname) for e in t["static"])
            if self.chance(0.2):
                return self.collection(scope, depth, "arr")
            elem = t.get("dynamic") or {"type": "any"}
            return "[%s]" % ", ".join(self.typed_term(elem, scope, depth + 1, fname)
                                      for _ in range(self.rng.randrange(4)))
        if ty == "set":
            if self.chance(0.2):
                return self.set_term(scope, depth)
            elem = t.get("of") or {"type": "any"}
            n = self.rng.randrange(4)
            if n == 0:
                return "set()"
            return "{%s}" % ", ".join(self.typed_term(elem, scope, depth + 1, fname) for _ in range(n))
        if ty == "object":
            if "static" in t:
                return "{%s}" % ", ".join('"%s": %s' % (kv["key"], self.typed_term(kv["value"], scope, depth + 1, fname))
                                          for kv in t["static"])
            if self.chance(0.2):
                return self.collection(scope, depth, "obj")
            dyn = t.get("dynamic") or {}
            kt = dyn.get("key") or {"type": "any"}
            vt = dyn.get("value") or {"type": "any"}
            return "{%s}" % ", ".join("%s: %s" % (self.typed_term(kt, scope, depth + 1, fname),
                                                  self.typed_term(vt, scope, depth + 1, fname))
                                      for _ in range(self.rng.randrange(4)))
        if ty == "any":
            return self.term(scope, depth)
        return self.scalar()

    def string_for(self, fname, scope, depth):
        fam = _family(fname)
        if fam and SPECIAL_STRINGS.get(fam) and self.chance(0.75):
            return '"%s"' % self.pick(SPECIAL_STRINGS[fam])
        return self.str_term(scope, depth)

    def func_call(self, scope, depth):
        if not self.funcs:
            return None
        name = self.pick(sorted(self.funcs))
        n = self.funcs[name]
        if self.chance(0.02):
            n += self.pick([-1, 1])  # an arity mismatch
        return "%s(%s)" % (name, ", ".join(self.term(scope, depth + 1) for _ in range(max(n, 0))))

    # ---- expressions ---------------------------------------------------------------------
    def condition(self, scope, depth=0):
        """An expression that binds nothing new (a test)."""
        k = self.rng.randrange(13)
        if k < 3:
            op = self.pick(["==", "!=", "<", "<=", ">", ">=", "=="])
            t = self.pick(["num", "str", "coll", None] if not self.chance(self.sloppy) else [None])
            return "%s %s %s" % (self.term(scope, depth + 1, t), op, self.term(scope, depth + 1, t))
        if k == 3:
            return "%s %s %s" % (self.num_term(scope, depth + 1), self.pick(["<", ">", "==", ">=", "!="]),
                                 self.num_term(scope, depth + 1))
        if k == 4:
            return "%s in %s" % (self.term(scope, depth + 1), self.collection(scope, depth + 1))
        if k in (5, 6):
            return self.call_returning("bool", scope, depth) if self.chance(0.6) else self.builtin_call(scope, depth)
        if k == 7 and depth < 2:
            c = self.condition(scope, depth + 1)
            return c if c.startswith("not ") else "not " + c
        if k == 8:
            return self.rule_ref(scope) or "true"
        if k == 9:
            v = self.var_of(scope, None)
            return self.use_of(v, scope) if v else "input.a"
        if k == 10:
            c = self.func_call(scope, depth)
            if c:
                return c
        if k == 11:
            return "%s == %s" % (self.str_term(scope, depth + 1), self.str_term(scope, depth + 1))
        return "%s %s %s" % (self.num_term(scope, depth + 1), self.pick(["<", ">", "=="]), self.number())

    def use_of(self, v, scope):
        """A condition on variable v."""
        k = self.rng.randrange(7)
        if k == 0:
            return "%s %s %s" % (v, self.pick(["==", "!=", "<", ">=", ">"]),
                                 self.scalar() if scope.get(v) is None else self.term(scope, 3, scope.get(v)))
        if k == 1:
            return "%s(%s)" % (self.pick(["is_number", "is_string", "is_array", "is_object"]), v)
        if k == 2:
            return "%s %s %s" % (v, self.pick(["!=", "<", ">"]), self.term(scope, 2, scope.get(v)))
        if k == 3:
            return "count([%s]) > 0" % v
        if k == 4:
            return "%s in %s" % (v, self.collection(scope, 2))
        if k == 5 and scope.get(v) == "num":
            return "%s %s %s" % (v, self.pick(["<", ">", "==", "!="]), self.num_term(scope, 2))
        return "type_name(%s) != \"%s\"" % (v, self.pick(["null", "string", "number", "array"]))

    def statement(self, scope, depth):
        """Returns (text, {newly bound var: kind})."""
        k = self.rng.randrange(30)
        if k >= 22:
            return self.extra_statement(scope, depth)
        if k < 5:
            v = self.fresh()
            t = self.pick(["num", "num", "str", "coll", None, None])
            return "%s := %s" % (v, self.term(scope, depth + 1, t)), {v: t if t != "coll" else None}
        if k < 7:
            v = self.fresh()
            return "some %s in %s" % (v, self.collection(scope, depth + 1)), {v: None}
        if k == 7:
            kk, v = self.fresh(), self.fresh()
            return "some %s, %s in %s" % (kk, v, self.collection(scope, depth + 1)), {kk: None, v: None}
        if k == 8:
            v = self.fresh()
            ref = self.pick(["input.xs", "input.obj", "data.d.list", "data.d.cfg", "input.arr", "input.m"])
            return "%s[%s]" % (ref, v), {v: None}
        if k == 9 and depth < 2:
            kk, v = self.fresh(), self.fresh()
            inner = dict(scope, **{kk: None, v: None})
            uses = [self.use_of(kk, inner), self.use_of(v, inner)]
            body = "; ".join(uses if self.chance(0.5) else uses[1:])
            if kk not in body:
                kk = "_"
            return "every %s, %s in %s { %s }" % (kk, v, self.collection(scope, depth + 1), body), {}
        if k == 10 and depth < 2:
            v = self.fresh()
            inner = dict(scope, **{v: None})
            body = self.use_of(v, inner)
            if self.chance(0.3):
                body += "; " + self.condition(inner, depth + 1)
            return "every %s in %s { %s }" % (v, self.collection(scope, depth + 1), body), {}
        if k in (11, 12):
            return "%s with %s" % (self.condition(scope, depth), self.with_target(scope)), {}
        if k == 13:
            v = self.fresh()
            return "%s = %s" % (v, self.term(scope, depth + 1)), {v: None}
        if k == 14 and self.chance(0.4):
            return "print(%s)" % ", ".join(self.term(scope, depth + 1) for _ in range(self.rng.randrange(1, 3))), {}
        if k == 15:
            v = self.fresh()
            return "[%s, _] = %s" % (v, self.pick(["[1, 2]", "input.xs", "[\"a\", input.a]", "[input.n, 0]"])), {v: None}
        if k == 16:
            v = self.fresh()
            return "%s := %s" % (v, self.builtin_call(scope, depth + 1)), {v: None}
        if k == 17:
            v = self.fresh()
            return "%s := %s" % (v, self.comprehension(scope, depth + 1)), {v: None}
        return self.condition(scope, depth), {}

    def extra_statement(self, scope, depth):
        """Shapes another generator would write: number edge cases, set algebra, ordering of
        composites, `in` with two and three operands, nested quantifiers, comprehensions as keys."""
        k = self.rng.randrange(12)
        v = self.fresh()
        if k == 0:  # arithmetic at the edges: big integers, exponents, remainders, division by zero
            a = self.pick(["12345678901234567890", "1e308", "2e308", "-9223372036854775808", "1.5e-300", "7",
                           "0.1", "10", "-7", "3.0", "1e400", "18446744073709551616", "input.n", "input.a"])
            b = self.pick(["0", "0.0", "3", "-2", "2.5", "1e-300", "7", "1e10", "-0", "input.n", "12345678901234567890"])
            return "%s := %s %s %s" % (v, a, self.pick(["%", "/", "*", "-", "+", "%", "/"]), b), {v: "num"}
        if k == 1:  # set algebra on literal sets, refs and comprehensions
            a = self.pick(["{1, 2, 3}", "{1, \"a\"}", "set()", "{input.a, input.b}", "{x | some x in input.xs}",
                           "{1.0, 2}", "{[1], {\"a\": 1}}"])
            b = self.pick(["{2, 3}", "{1}", "set()", "{input.b}", "{\"a\"}", "{1, 1.0}", "[1]", "input.xs"])
            return "%s := %s %s %s" % (v, a, self.pick(["-", "|", "&"]), b), {v: "set"}
        if k == 2:  # ordering and equality of arrays, objects and sets
            a = self.pick(["[1, 2]", "[1, 3]", "[1]", "{\"a\": 1}", "{\"b\": 0}", "{1, 2}", "{2}", "[]", "{}",
                           "[\"a\", 1]", "null", "input.arr", "input.obj", "[1, [2]]", "{\"a\": [1]}"])
            b = self.pick(["[1, 2]", "[2]", "[1, 2, 3]", "{\"a\": 2}", "{\"a\": 1, \"b\": 2}", "{1, 3}", "[]",
                           "set()", "{}", "false", "input.arr", "[1.0, 2.0]"])
            return "%s %s %s" % (a, self.pick(["<", ">", "<=", ">=", "==", "!="]), b), {}
        if k == 3:  # `in` with two and three operands, as a term and negated
            coll = self.collection(scope, depth + 1)
            if self.chance(0.5):
                return "%s := %s, %s in %s" % (v, self.scalar(), self.scalar(), coll), {v: "bool"}
            return "%s := %s in %s" % (v, self.term(scope, depth + 1), coll), {v: "bool"}
        if k == 4:
            return "not %s, %s in %s" % (self.scalar(), self.scalar(), self.collection(scope, depth + 1)), {}
        if k == 5 and depth < 2:  # every with a nested some
            x, y = self.fresh(), self.fresh()
            return ("every %s in %s { some %s in %s; %s %s %s }" % (
                x, self.collection(scope, depth + 1), y, self.collection(scope, depth + 1), y,
                self.pick(["==", "!=", ">=", "<"]), x)), {}
        if k == 6:  # comprehensions in keys and as keys' collections
            x = self.fresh()
            return ("%s := {%s: %s | some %s in %s}" % (
                v, self.pick(["[%s]" % x, "{%s}" % x, "{\"k\": %s}" % x, "count([%s])" % x]), x, x,
                self.collection(scope, depth + 1))), {v: "obj"}
        if k == 7:  # a literal set of refs iterated (OPA's order of the set's elements)
            x = self.fresh()
            return "%s := [%s | some %s in {%s}]" % (v, x, x, ", ".join(self.pick(
                ["input.a", "input.b", "input.c", "input.n", "input.s", "data.d.x", "1", "\"a\""])
                for _ in range(self.rng.randrange(2, 4)))), {v: "arr"}
        if k == 8:  # strings, numbers and objects builtins with arguments of the wrong type
            f = self.pick(["upper", "lower", "trim", "split", "concat", "sprintf", "substring", "indexof",
                           "replace", "startswith", "abs", "round", "ceil", "floor", "to_number", "object.get",
                           "object.remove", "object.union", "json.marshal", "count", "sum", "max", "sort",
                           "array.concat", "array.slice", "format_int", "strings.reverse", "trim_left",
                           "numbers.range", "object.keys", "is_number", "product", "min"])
            arity = {b["name"]: len(b["args"]) for b in BUILTINS}.get(f, 1)
            args = [self.pick(["1", "\"a\"", "[1, \"b\"]", "{\"a\": 1}", "{1}", "null", "true", "input.s",
                               "input.n", "input.obj", "-1", "1.5", "[]", "\"\""]) for _ in range(arity)]
            return "%s := %s(%s)" % (v, f, ", ".join(args)), {v: None}
        if k == 9:  # print in a body, with undefined and composite arguments
            return "print(%s)" % ", ".join(self.pick(["input.nope", "input.xs", "{1, 2}", "\"s\"", "1.0", "input"])
                                             for _ in range(self.rng.randrange(1, 3))), {}
        if k == 10:  # with on builtins inside a comprehension
            return "%s := [y | y := count(%s)] with count as %s" % (
                v, self.collection(scope, depth + 1), self.pick(["sum", "1", "max", "product"])), {v: "arr"}
        return "%s := %s" % (v, self.pick(["to_number(\"1e3\")", "1e3 * 1", "0.1 + 0.2", "100000000000000000000 - 1",
                                          "2e308 - 1e308", "-0 * 1", "3 % 0", "1 / 0", "5 % 2.5", "7 % -3",
                                          "sum([\"a\"])", "max(set())", "1e-320 * 1"])), {v: "num"}

    def extra_rule(self):
        """Rule shapes another generator would write: ref-head partial objects, long else chains,
        functions with several bodies (and conflicts, recursion), `contains` with refs."""
        k = self.rng.randrange(6)
        if k == 0:
            name = self.rule_name("deep")
            texts = []
            for _ in range(self.rng.randrange(1, 3)):
                parts, scope = self.body({})
                texts.append("%s.b[%s] := %s if %s" % (name, self.head_term(scope, "str") if self.chance(0.7)
                                                       else self.scalar(), self.head_term(scope),
                                                       self.render_body(parts)))
            self.rules.append((name, "deep"))
            return "\n\n".join(texts)
        if k == 1:
            name = self.rule_name("complete")
            parts, scope = self.body({})
            text = "%s := %s if %s" % (name, self.head_term(scope), self.render_body(parts))
            for _ in range(self.rng.randrange(2, 5)):
                parts, scope = self.body({})
                text += " else := %s if %s" % (self.head_term(scope), self.render_body(parts))
            if self.chance(0.5):
                text += " else := %s" % self.scalar()
            self.rules.append((name, "complete"))
            return text
        if k == 2:
            fname = self.pick(_FUNC_NAMES)
            if fname in self.funcs:
                fname = fname + "2"
            texts = ["%s(x) := %s if { x %s %s }" % (fname, self.scalar(), self.pick(["==", ">", "!="]), self.scalar())
                     for _ in range(self.rng.randrange(2, 4))]
            if self.chance(0.3):
                texts.append("%s(x) := %s else := %s" % (fname, self.scalar(), self.scalar()))
            self.funcs[fname] = 1
            return "\n\n".join(texts)
        if k == 3:
            name = self.rule_name("set")
            parts, scope = self.body({})
            self.rules.append((name, "set"))
            return "%s contains %s if %s\n\n%s contains %s" % (
                name, self.pick(["input.a", "input.xs[_]", "data.d.x", "[input.n, 1]"]), self.render_body(parts),
                name, self.scalar())
        if k == 4:
            name = self.rule_name("complete")
            self.rules.append((name, "complete"))
            return "%s if {\n\tx := count(input.xs)\n\tx > 0\n} with count as %s" % (name, self.pick(["sum", "1"])) \
                if self.chance(0.1) else "%s := c if { c := count(%s) }" % (name, self.collection({}))
        name = self.rule_name("obj")
        self.rules.append((name, "obj"))
        return "%s[k] := v if {\n\tsome k, v in %s\n}\n\n%s[\"z\"] := 0" % (
            name, self.pick(["input.obj", "data.d.cfg", "{\"a\": 1, \"z\": 1}", "input.m", "{\"b\": 2}"]), name)

    def with_target(self, scope):
        k = self.rng.randrange(7)
        if k < 2:
            return "input as %s" % self.pick(["{\"a\": 1, \"n\": 2.5}", "{}", "1", "{\"xs\": [1, 2.0]}",
                                              self.term(scope, 2)])
        if k == 2:
            return "input.%s as %s" % (self.pick(INPUT_KEYS), self.term(scope, 2))
        if k == 3:
            return "data.d.%s as %s" % (self.pick(DATA_KEYS), self.term(scope, 2))
        if k == 4 and self.rules:
            return "data.p.%s as %s" % (self.pick(self.rules)[0], self.term(scope, 2))
        if k == 5 and self.funcs:
            name = self.pick(sorted(self.funcs))
            if self.funcs[name] == 1:
                return "%s as %s" % (name, self.pick(["count", "upper", "abs", "true", "1", "is_number"]))
            return "%s as %s" % (name, self.pick(["concat", "startswith", "sprintf", "\"x\"", "[1]"]))
        return self.pick(["count as 1", "count as product", "upper as lower", "upper as trim_space", "abs as round",
                          "concat as sprintf", "startswith as endswith", "time.now_ns as 5", "startswith as true",
                          "is_number as is_string", "lower as \"x\"", "sum as max", "to_number as count"])

    def body(self, scope, depth=0, min_len=1, max_len=4):
        scope = dict(scope)
        parts = []
        for _ in range(self.rng.randrange(min_len, max_len + 1)):
            text, bound = self.statement(scope, depth)
            parts.append(text)
            scope.update(bound)
        return parts, scope

    def render_body(self, parts):
        if len(parts) <= 2 and self.chance(0.4):
            return "{ %s }" % "; ".join(parts)
        return "{\n\t" + "\n\t".join(parts) + "\n}"

    # ---- rules ---------------------------------------------------------------------------
    def rule_name(self, kind):
        name = self.pick(_RULE_NAMES)
        for n, k in self.rules:
            if n == name and (k != kind or self.chance(0.9)):
                return name + str(len(self.rules))
        return name

    def rule(self):
        k = self.rng.randrange(19)
        if k >= 15:
            return self.extra_rule()
        if k < 3:  # complete rule with a value, maybe with else and default
            name = self.rule_name("complete")
            parts, scope = self.body({})
            if self.chance(0.25):
                text = "%s := %s" % (name, self.term({}))
            else:
                text = "%s %s %s if %s" % (name, self.pick([":=", ":=", "="]), self.head_term(scope),
                                           self.render_body(parts))
                if self.chance(0.25):
                    parts2, scope2 = self.body({})
                    text += " else := %s if %s" % (self.head_term(scope2), self.render_body(parts2))
                    if self.chance(0.4):
                        text += " else := %s" % self.scalar()
            if self.chance(0.3):
                text = "default %s := %s\n\n%s" % (name, self.scalar(), text)
            self.rules.append((name, "complete"))
            return text
        if k < 5:  # boolean rule, maybe several definitions
            name = self.rule_name("complete")
            texts = []
            for _ in range(self.rng.randrange(1, 3)):
                parts, _ = self.body({})
                texts.append("%s if %s" % (name, self.render_body(parts)))
            if self.chance(0.4):
                texts.insert(0, "default %s := %s" % (name, self.pick(["false", "true", "0", "\"no\""])))
            self.rules.append((name, "complete"))
            return "\n\n".join(texts)
        if k < 7:  # partial set
            name = self.rule_name("set")
            texts = []
            for _ in range(self.rng.randrange(1, 3)):
                parts, scope = self.body({})
                texts.append("%s contains %s if %s" % (name, self.head_term(scope), self.render_body(parts)))
            if self.chance(0.15):
                texts.append("%s contains %s" % (name, self.scalar()))
            self.rules.append((name, "set"))
            return "\n\n".join(texts)
        if k < 9:  # partial object
            name = self.rule_name("obj")
            texts = []
            for _ in range(self.rng.randrange(1, 3)):
                parts, scope = self.body({})
                texts.append("%s[%s] := %s if %s" % (name, self.head_term(scope), self.head_term(scope),
                                                     self.render_body(parts)))
            if self.chance(0.25):
                texts.append("%s%s[%s] := %s" % ("default " if self.chance(0.3) else "", name,
                                                 self.scalar(), self.scalar()))
            self.rules.append((name, "obj"))
            return "\n\n".join(texts)
        if k == 9:  # multi-level ref heads
            name = self.rule_name("multi")
            texts = []
            for _ in range(self.rng.randrange(1, 4)):
                parts, scope = self.body({})
                key = self.head_term(scope) if self.chance(0.6) else self.scalar()
                sub = self.pick([".w", ".v", "[\"a\"]", "[1]", "", ".w"])
                texts.append("%s[%s]%s := %s if %s" % (name, key, sub, self.head_term(scope), self.render_body(parts)))
            self.rules.append((name, "multi"))
            return "\n\n".join(texts)
        if k < 12:  # function
            fname = self.pick(_FUNC_NAMES)
            arity = self.funcs.get(fname, self.rng.randrange(1, 3))
            texts = []
            for _ in range(self.rng.randrange(1, 3)):
                params = [self.fresh() for _ in range(arity)]
                if self.chance(0.2):
                    params[0] = self.scalar()
                scope = {p: None for p in params if p.startswith("x")}
                parts, scope = self.body(scope, 0, 0, 3)
                head = "%s(%s)" % (fname, ", ".join(params))
                if not parts and self.chance(0.5):
                    texts.append("%s := %s" % (head, self.head_term(scope)))
                elif self.chance(0.2):
                    texts.append("%s if %s" % (head, self.render_body(parts or ["true"])))
                else:
                    texts.append("%s := %s if %s" % (head, self.head_term(scope), self.render_body(parts or ["true"])))
            if self.chance(0.15):
                texts.append("default %s(%s) := %s" % (fname, ", ".join("_" for _ in range(arity)), self.scalar()))
            self.funcs[fname] = arity
            return "\n\n".join(texts)
        if k == 12:  # a constant
            name = self.rule_name("complete")
            self.rules.append((name, "complete"))
            return "%s := %s" % (name, self.term({}))
        # ref heads into a nested object
        name = self.rule_name("deep")
        texts = []
        for _ in range(self.rng.randrange(1, 3)):
            parts, scope = self.body({})
            texts.append("%s.%s := %s if %s" % (name, self.pick(["a", "b.c", "b.d", "e"]), self.head_term(scope),
                                                self.render_body(parts)))
        self.rules.append((name, "deep"))
        return "\n\n".join(texts)

    # ---- broken programs -----------------------------------------------------------------
    def break_module(self, text):
        k = self.rng.randrange(19)
        return text + "\n" + [
            "bad(x) := bad(x)",
            "bad(1) := 1\n\nbad(x) := 2",
            "bad.b[x] := 1 if { some x in [1, 2] }\n\nbad.b[1] := 2",
            "bad := [x | x := 1] with count as 1",
            "bad if { x := 1 / 0 }",
        ][k - 14] if k >= 14 else text + "\n" + [
            "bad contains y if { x := 1 }",
            "bad := 1 + \"a\"",
            "bad := undefined_fn(1)",
            "bad if bad2\n\nbad2 if bad",
            "bad := 1\n\nbad := 2",
            "bad := [1,\n",
            "bad if { x := 1; x := 2 }",
            "bad := count(1, 2)",
            "bad[x] := 1 if { x := input.a }\n\nbad := 2",
            "bad if { some x; y := x }",
            "bad := {1: 1} == {\"a\": 1}\n\nbad2 if { \"a\" > 1 }",
            "bad if input.a.b.c[_] = data.p.bad",
            "bad := x if { not x }",
            "bad if { every x in [1] { true } }",
        ][k] + "\n"

    # ---- the case ------------------------------------------------------------------------
    def module(self):
        head = "package p\n\n"
        if self.chance(0.15):
            head += self.pick(["import rego.v1\n\n", "import future.keywords.in\n\n", "import input.obj\n\n"])
        if self.chance(0.1):
            head += "import data.d\n\n"
        rules = [self.rule() for _ in range(self.rng.randrange(2, 7))]
        return head + "\n\n".join(rules) + "\n"

    def query(self):
        k = self.rng.randrange(10)
        if k < 6 or not self.rules:
            return "data.p"
        if k < 9:
            return "data.p." + self.pick(self.rules)[0]
        scope = {}
        parts = []
        for _ in range(self.rng.randrange(1, 3)):
            text, bound = self.statement(scope, 1)
            parts.append(text.replace("\n", " "))
            scope.update(bound)
        return "; ".join(parts)


def parenthesized(t):
    """t, in parentheses unless it is one literal, reference or call (so `|`, `:` and operators in it
    cannot bind to what surrounds it)."""
    depth = 0
    quoted = escaped = False
    for c in t:
        if quoted:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                quoted = False
            continue
        if c == '"':
            quoted = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == " " and depth == 0:
            return "(%s)" % t
    return t


class RawNumber:
    """A JSON number kept in its spelling (json.dumps would respell it)."""

    def __init__(self, text):
        self.text = text


class JsonPairs:
    """A JSON object written as its (key, value) pairs in order, repeated keys kept (the last wins)."""

    def __init__(self, pairs):
        self.pairs = pairs


def dump_json(v):
    """JSON text with RawNumber spellings (and JsonPairs' repeated keys) kept."""
    if isinstance(v, RawNumber):
        return v.text
    if isinstance(v, JsonPairs):
        return "{" + ", ".join("%s: %s" % (json.dumps(k, ensure_ascii=False), dump_json(x)) for k, x in v.pairs) + "}"
    if isinstance(v, dict):
        return "{" + ", ".join("%s: %s" % (json.dumps(k, ensure_ascii=False), dump_json(x)) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dump_json(x) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def generate(seed):
    g = Gen(seed)
    text = g.module()
    if g.chance(0.1):
        text = g.break_module(text)
    modules = {"p.rego": text}
    if g.chance(0.1):
        modules["lib.rego"] = "package lib\n\nhelper(x) := x * 2\n\nconst := {\"k\": [1, 2.5]}\n"
    data = {"d": g.json_document(DATA_KEYS)}
    case = {"id": "v%d-%d" % (VERSION, seed), "seed": seed, "modules": modules, "data": dump_json(data), "query": g.query()}
    if g.chance(0.9):
        case["input"] = dump_json(g.json_document(INPUT_KEYS))
    return case


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:]:
        c = generate(int(s))
        for name, text in c["modules"].items():
            print("# ---- %s" % name)
            print(text)
        print("# data:", c["data"])
        print("# input:", c.get("input"))
        print("# query:", c["query"])
