"""A second generation style: expression- and composition-heavy Rego programs.

generate(seed) -> case dict, as generator.generate, with ids "e<VERSION>-<seed>".

Where generator.py draws many small statements of every kind, this style writes few statements
with deep expressions: builtin calls whose results feed other builtins (strings, arrays, objects,
sets, numbers, encodings, regexes, time, units, semver, net, glob, JSON, YAML), arithmetic over
every number spelling with comparisons and rounding, sprintf with many verbs and argument kinds,
set/object/array algebra (`|`, `&`, `-`, object.union_n, array.concat, json.patch ...), chains of
virtual documents (rules reading rules, partial sets and objects through refs with variables:
`data.p.po[x].y`), functions calling functions, `else` chains, comprehensions nested 2-3 deep
with several generators, `every` over objects and sets, `with` on nested data paths and
functions, `in` / `some k, v in` over every collection kind, and the syntax forms OPA's parser
accepts (`import rego.v1`, `if` with and without braces, ref heads, raw strings, multi-line
literals with trailing commas, comments, odd spacing).

Expressions are generated for a wanted kind: "num", "str", "bool", "any", or a collection with
its element kind ("arr:num", "set:str", "obj:num" -- objects have string keys). Variables, rules
and functions remember their kinds, so most programs pass the type checker; a small share is
broken on purpose.
"""

import json
import random
import re

import generator
from generator import RawNumber, dump_json

# Bumped whenever a seed's program changes, so recorded ids (e<version>-<seed>) stay unique.
VERSION = 1

NUMS = ["0", "1", "2", "3", "5", "7", "10", "16", "42", "100", "255", "1024", "-1", "-3", "-0", "0.0", "-0.0",
        "1.0", "2.0", "0.5", "1.5", "2.5", "-2.5", "-0.5", "0.1", "0.2", "0.3", "3.14159", "2.675", "1.005",
        "1e3", "1E3", "1e-3", "2e2", "1.5e2", "1e0", "0.1e1", "5e-1", "1e10", "1e21", "1e-7", "1e100",
        "12345678901234567890", "9223372036854775807", "-9223372036854775808", "18446744073709551616",
        "999999999999999999999", "4294967296", "0.30000000000000004", "123.456", "99.99", "1e6", "-1e-5",
        "6", "8", "9", "12", "33.333", "1000000", "65536", "2.0e0", "100.0", "0.001"]
SMALL_INTS = ["0", "1", "2", "3", "4", "5", "-1", "10"]
INDEXES = ["0", "1", "2", "3", "1", "0", "2", "1"] * 3 + ["1.0"]
STRS = ["", "a", "b", "abc", "foo", "bar", "Foo", "foo.bar", "a,b,c", "a-b_c", "hello world", "  pad  ",
        "x", "héllo", "日本", "😀", "1", "1.5", "-0", "007", "true", "null", "aaa", "ab", "ba", "a/b/c",
        "k=v", "a b", "%", "\\\"q\\\"", "a\\\\b", "tab\\there", "line\\nnext", "MiXeD", "ÄÖü", "", "z"]
SEPS = ["", ",", ".", "-", " ", "/", "a", ", "]
REGEXES = ["[a-z]+", "a(b)?", "^a", "b$", "(a)|(b)", "\\\\d+", "[aeiou]", ".", "o+", "(?i)foo", "x*", "\\\\s",
           "[^a-c]", "^$", "(\\\\w)(\\\\w)", "a{2,}", "\\\\.", "é", "\\\\bfoo\\\\b", "[0-9]+\\\\.[0-9]+"]
RAW_REGEXES = ["`\\d+`", "`[a-z]+\\.`", "`^\\w+$`", "`(\\w+)@(\\w+)`", "`\\s+`", "`a\\b`"]
GLOBS = ["*.com", "a.*", "*", "?", "{a,b}*", "[a-c]*", "**.bar", "foo.*", "*/c", "a/**", "\\\\*", "[!a]*"]
TIMES = ["2024-01-02T03:04:05Z", "2024-02-29T23:59:59.5Z", "1970-01-01T00:00:00Z", "2023-12-31T23:59:59+01:00",
         "2000-06-15T12:00:00.123456789-07:00", "2024-02-30T00:00:00Z", "1969-12-31T23:59:59Z"]
DURATIONS = ["1h", "90m", "1h30m", "1.5h", "10s", "-1s", "1ms", "2us", "300ns", "1h2m3s4ms", "0", "x", "25h"]
NS = ["0", "1700000000000000000", "1704164645000000000", "-1", "86400000000000", "1e18", "1.5e18",
      "1709251199500000000", "-86400000000000", "253402300799000000000"]
LAYOUTS = [("2006-01-02", ["2024-01-02", "1999-12-31", "2024-13-01"]),
           ("02 Jan 06 15:04 MST", ["02 Jan 24 15:04 UTC", "31 Dec 99 23:59 PST"]),
           ("15:04:05", ["03:04:05", "23:59:60"]),
           ("2006-01-02T15:04:05Z07:00", ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05+05:30"]),
           ("Jan _2 2006", ["Feb  3 2021", "Mar 15 2020"])]
TZS = ["UTC", "America/New_York", "Asia/Tokyo", "Europe/Berlin", "Local", "", "Nowhere/City"]
FORMAT_LAYOUTS = ["2006-01-02", "RFC3339", "Mon Jan _2 15:04:05 2006", "15:04:05.000", "2006-01-02T15:04:05Z07:00",
                  "Jan 2, 2006 at 3:04pm (MST)", "RFC822", "Kitchen", "2006.01.02 MST"]
UNITS = ["10Ki", "1.5G", "100m", "1e3", "10", "0.5Mi", "2m", "1Gi", "1e-3", "-1K", ".5", "1k", "5M", "3T", "x"]
BYTES = ["10KB", "1.5GiB", "100", "1MB", "1Mi", "5kb", "2.5TB", "0", "1e3", "12EiB", "3 GB", "x"]
SEMVERS = ["1.2.3", "1.10.0", "1.2.3-alpha", "1.2.3-alpha.1", "1.2.3-beta", "2.0.0", "0.0.1", "1.2.3+build.7",
           "1.2", "1.02.3", "10.20.30"]
CIDRS = ["10.0.0.0/8", "10.0.0.0/24", "10.1.2.0/23", "192.168.0.0/16", "192.168.1.0/24", "0.0.0.0/0",
         "172.16.0.0/12", "2001:db8::/32", "::1/128", "10.0.0.0/33", "10.0.0.1/32"]
IPS = ["10.0.0.1", "10.1.2.3", "192.168.1.7", "172.16.5.4", "8.8.8.8", "2001:db8::1", "::1", "x", "10.0.0.256"]
JSONS = ["{\\\"a\\\": 1}", "[1, 2.0, 1e3]", "1.50", "\\\"s\\\"", "null", "true", "{\\\"a\\\": {\\\"b\\\": [1, 2]}}",
         "[]", "{}", "-0", "0.1", "1E2", "[\\\"x\\\", {\\\"y\\\": null}]", "12345678901234567890", "{"]
YAMLS = ["a: 1", "- 1\\n- 2", "x: [1, 2.5]", "a: {b: c}", "1.0", "~", "a: 1e3", "yes", "b: true\\nc: null",
         "- a\\n- b: 2", "{a: [x, y]}", "a: 'q'", ": :"]
B64 = ["aGVsbG8=", "aGVsbG8", "YQ==", "eyJhIjoxfQ", "", "_-8=", "!!"]
URIS = ["a b", "x%20y", "a=1&b=2&a=3", "%zz", "k=v&k=w", "é", "a+b", "a&b=c"]
SPRINTF_VERBS = ["%v", "%d", "%s", "%q", "%x", "%X", "%f", "%.2f", "%e", "%E", "%g", "%G", "%T", "%o", "%b",
                 "%5d", "%-5d", "%05d", "%+d", "%8.3f", "%-8s|", "%10s", "%.1s", "%t", "%%", "%.0f", "%6.2e",
                 "%+v", "%#v", "%x", "%c", "%U", "%03o", "% d", "%.3g"]
TEMPLATE_STRS = ["{{.a}}-{{.b}}", "{{range .xs}}[{{.}}]{{end}}", "{{if .a}}yes{{else}}no{{end}}", "x{{.a}}"]

INPUT_KEYS = ["n", "m", "s", "t", "xs", "ss", "o", "so", "ip", "ver", "ts", "flag", "nested"]
_RULES = ["r", "s", "t", "u", "v", "w", "allow", "deny", "res", "out", "val", "info"]
_FUNCS = ["f", "g", "h", "k", "fmt", "norm"]


def elem_of(kind):
    return kind.split(":", 1)[1] if ":" in kind else "any"


def is_coll(kind):
    return ":" in kind


class ExprGen(generator.Draws):
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.counter = 0
        self.rules = []      # (name, kind): complete rules' value kinds; "pset:E", "pobj:E" (values are objects
        self.funcs = []      # (name, [arg kinds], result kind)
        self.used_names = set()
        self.loose = self.pick([0.0] * 8 + [0.01, 0.03])   # chance of an argument of any kind
        self.compact = self.chance(0.2)                     # `x:=1`, `f( x )` spacing

    # ---- random helpers ------------------------------------------------------------------
    def fresh(self, prefix="x"):
        self.counter += 1
        return "%s%d" % (prefix, self.counter)

    def q(self, s):
        return '"%s"' % s

    def assign(self):
        return ":=" if self.compact and self.chance(0.5) else " := "

    # ---- leaves --------------------------------------------------------------------------
    def num_lit(self):
        return self.pick(NUMS if self.chance(0.6) else SMALL_INTS)

    def str_lit(self):
        return self.q(self.pick(STRS))

    def var(self, scope, kind):
        vs = sorted(v for v, k in scope.items() if k == kind or (kind == "any") or
                    (is_coll(kind) and elem_of(kind) == "any" and k.split(":")[0] == kind.split(":")[0]))
        return self.pick(vs) if vs else None

    def rule_of(self, kind):
        rs = [n for n, k in self.rules if k == kind or (kind == "any" and not k.startswith("p"))]
        return self.pick(rs) if rs else None

    def const(self, kind):
        """A constant of the kind (what `default` and `with ... as` may hold anywhere)."""
        return self.leaf(kind, {}, constant=True)

    def leaf(self, kind, scope, constant=False):
        v = self.var(scope, kind)
        if v and self.chance(0.5):
            return v
        r = None if constant else self.rule_of(kind)
        if r and self.chance(0.3):
            return r if self.chance(0.7) or "(" in r else "data.p." + r
        base = kind.split(":")[0]
        e = elem_of(kind)
        if base == "num":
            return self.pick(["input.n", "input.m", "data.d.limits.max", "input.xs[0]", "data.d.list[1]"]) \
                if self.chance(0.25) and not constant else self.num_lit()
        if base == "str":
            return self.pick(["input.s", "input.t", "data.d.name", "input.ss[0]", "input.so.a"]) \
                if self.chance(0.25) and not constant else self.str_lit()
        if base == "bool":
            return self.pick(["true", "false"] if constant else ["true", "false", "input.flag"])
        if base == "arr":
            if self.chance(0.3) and not constant:
                return {"num": "input.xs", "str": self.pick(["input.ss", "data.d.names"])}.get(e, "data.d.list")
            return "[%s]" % ", ".join(self.leaf(e, scope, constant) for _ in range(self.n(0, 3)))
        if base == "set":
            items = [self.leaf(e, scope, constant) for _ in range(self.n(0, 3))]
            return "{%s}" % ", ".join(items) if items else "set()"
        if base == "obj":
            if self.chance(0.3) and not constant:
                return {"num": "input.o", "str": "input.so"}.get(e, "data.d.users")
            return "{%s}" % ", ".join("%s: %s" % (self.q(self.pick(["a", "b", "c", "k", "x y", ""])), self.leaf(e, scope, constant))
                                     for _ in range(self.n(0, 3)))
        # any
        return self.leaf(self.pick(["num", "str", "bool", "arr:num", "obj:str", "set:num"]), scope, constant) \
            if self.chance(0.9) else "null"

    # ---- expressions ---------------------------------------------------------------------
    def expr(self, kind, scope, d):
        if self.chance(self.loose):
            kind = self.pick(["num", "str", "arr:any", "obj:any", "set:any", "bool"])
        if d <= 0 or self.chance(0.18):
            return self.leaf(kind, scope)
        base = kind.split(":")[0]
        if base == "any":
            kind = self.pick(["num", "str", "bool", "arr:num", "arr:str", "set:str", "obj:num", "obj:any", "num", "str"])
            base = kind.split(":")[0]
        fn = {"num": self.num_expr, "str": self.str_expr, "bool": self.bool_expr, "arr": self.arr_expr,
              "set": self.set_expr, "obj": self.obj_expr}[base]
        return fn(kind, scope, d - 1)

    def paren(self, t):
        return generator.parenthesized(t)

    def user_call(self, kind, scope, d):
        fs = [f for f in self.funcs if f[2] == kind]
        if not fs:
            return None
        name, args, _ = self.pick(fs)
        return "%s(%s)" % (name, ", ".join(self.expr(a, scope, d) for a in args))

    def num_expr(self, kind, scope, d):
        k = self.n(0, 27)
        E = lambda kk="num": self.expr(kk, scope, d)
        if k < 5:
            op = self.pick(["+", "-", "*", "/", "%", "+", "*", "-"])
            return "%s %s %s" % (self.paren(E()), op, self.paren(E()))
        if k == 5:
            return "%s(%s)" % (self.pick(["abs", "round", "ceil", "floor"]), E())
        if k == 6:
            return "count(%s)" % E(self.pick(["arr:num", "arr:str", "set:str", "obj:num", "str"]))
        if k == 7:
            return "%s(%s)" % (self.pick(["sum", "product", "max", "min"]), E(self.pick(["arr:num", "set:num"])))
        if k == 8:
            return "to_number(%s)" % self.pick([self.q(self.pick(["1", "1.5", "-0", "1e3", "0x10", "  2", "12345678901234567890", "007", "1_0", "+5", ".5"])),
                                              "format_int(%s, %s)" % (E(), self.pick(["2", "8", "10", "16"])),
                                              "sprintf(\"%%d\", [%s])" % E(), "true", "null", E()])
        if k == 9:
            return "%s(%s, %s)" % (self.pick(["indexof", "strings.count"]), E("str"), E("str"))
        if k == 10:
            return "%s(%s)" % self.pick([("units.parse", self.q(self.pick(UNITS))),
                                         ("units.parse_bytes", self.q(self.pick(BYTES)))])
        if k == 11:
            layout, vals = self.pick(LAYOUTS)
            return self.pick(["time.parse_rfc3339_ns(%s)" % self.q(self.pick(TIMES)),
                              "time.parse_duration_ns(%s)" % self.q(self.pick(DURATIONS)),
                              "time.parse_ns(%s, %s)" % (self.q(layout), self.q(self.pick(vals))),
                              "time.add_date(%s, %s, %s, %s)" % (self.pick(NS), self.pick(SMALL_INTS),
                                                                 self.pick(SMALL_INTS), self.pick(["0", "1", "31", "-1"]))])
        if k == 12:
            return "%s[%s]" % (self.pick(["time.date", "time.clock"]) + "(%s)" % self.ns_arg(), self.pick(["0", "1", "2"])) \
                if self.chance(0.7) else "time.diff(%s, %s)[%s]" % (self.ns_arg(), self.ns_arg(), self.pick(["0", "3", "5"]))
        if k == 13:
            f = self.pick(["bits.and", "bits.or", "bits.xor", "bits.lsh", "bits.rsh"])
            return "%s(%s, %s)" % (f, self.pick(SMALL_INTS + ["255", "1024", E()]), self.pick(SMALL_INTS))
        if k == 14:
            return "semver.compare(%s, %s)" % (self.q(self.pick(SEMVERS)), self.q(self.pick(SEMVERS)))
        if k == 15:
            return "%s[%s]" % (self.dynamic_array("num", scope, d), self.pick(INDEXES))
        if k == 16:
            return "object.get(%s, %s, %s)" % (E("obj:num"), self.q(self.pick(["a", "b", "k"])), E())
        if k == 17:
            c = self.user_call("num", scope, d)
            if c:
                return c
        if k == 18:
            return "count(split(%s, %s))" % (E("str"), self.q(self.pick(SEPS)))
        if k == 19:
            return "numbers.range(%s, %s)[%s]" % (self.pick(SMALL_INTS), self.pick(SMALL_INTS), self.pick(INDEXES))
        if k == 20:
            return "json.unmarshal(%s)" % self.q(self.pick(["1.50", "1e3", "-0", "12345678901234567890", "0.1", "2"]))
        if k == 21:
            return "bits.negate(%s)" % self.pick(SMALL_INTS)
        if k == 22:
            return "%s %s %s %s %s" % (self.paren(E()), self.pick(["+", "*", "-"]), self.paren(E()),
                                       self.pick(["/", "*", "-"]), self.paren(E()))
        if k == 23:
            return self.fill("sum([@ | some @ in %s; @ %s %s])") % (E("arr:num"), self.pick([">", "<", "!=", ">="]), self.num_lit())
        if k == 24:
            return self.fill("count({@ | some @ in %s})") % E(self.pick(["arr:num", "arr:str"]))
        return "%s(%s)" % (self.pick(["round", "abs"]), self.paren("%s / %s" % (self.paren(E()), self.paren(E()))))

    def dynamic_array(self, e, scope, d):
        """An array whose length the type checker does not know (indexing a literal out of its range is a
        type error)."""
        return self.pick(["array.concat(%s, %s)" % (self.expr("arr:" + e, scope, d), self.expr("arr:" + e, scope, d)),
                          "sort(%s)" % self.expr("arr:" + e, scope, d),
                          {"num": "input.xs", "str": "input.ss"}[e], {"num": "data.d.list", "str": "data.d.names"}[e],
                          "array.slice(%s, 0, 5)" % self.expr("arr:" + e, scope, d)])

    def fill(self, template):
        """The template with fresh variables for @ (and @k, @v)."""
        for mark in ("@k", "@v", "@"):
            if mark in template:
                template = template.replace(mark, self.fresh())
        return template

    def ns_arg(self):
        return self.pick(NS) if self.chance(0.6) else "[%s, %s]" % (self.pick(NS), self.q(self.pick(TZS)))

    def sprintf(self, scope, d):
        parts, args = [], []
        for _ in range(self.n(1, 4)):
            verb = self.pick(SPRINTF_VERBS)
            parts.append(verb)
            if verb == "%%":
                continue
            if verb in ("%d", "%5d", "%-5d", "%05d", "%+d", "%o", "%b", "%03o", "% d", "%c", "%U"):
                ak = "num"
            elif verb in ("%f", "%.2f", "%e", "%E", "%g", "%G", "%8.3f", "%.0f", "%6.2e", "%.3g"):
                ak = "num"
            elif verb in ("%s", "%q", "%-8s|", "%10s", "%.1s"):
                ak = "str"
            elif verb == "%t":
                ak = "bool"
            else:
                ak = "any"
            if self.chance(0.15):
                ak = self.pick(["any", "num", "str", "arr:num", "obj:str", "set:num", "bool"])
            args.append(self.expr(ak, scope, d))
        sep = self.pick(["", " ", "-", ":", "|", " / "])
        if self.chance(0.1):
            args.append(self.leaf("num", scope))  # an extra argument: %!(EXTRA ...)
        elif self.chance(0.07) and args:
            args.pop()  # a missing one: %!d(MISSING)
        return "sprintf(%s, [%s])" % (self.q(sep.join(parts)), ", ".join(args))

    def str_expr(self, kind, scope, d):
        k = self.n(0, 30)
        E = lambda kk="str": self.expr(kk, scope, d)
        if k < 4:
            return self.sprintf(scope, d)
        if k == 4:
            return "concat(%s, %s)" % (self.q(self.pick(SEPS)), E(self.pick(["arr:str", "set:str"])))
        if k == 5:
            return "%s(%s)" % (self.pick(["upper", "lower", "trim_space", "strings.reverse"]), E())
        if k == 6:
            return "%s(%s, %s)" % (self.pick(["trim", "trim_left", "trim_right", "trim_prefix", "trim_suffix"]), E(),
                                   self.q(self.pick(["a", " ", "ab", "x", "/", "-_"])))
        if k == 7:
            return "replace(%s, %s, %s)" % (E(), self.q(self.pick(["a", "o", "", ".", " "])), E())
        if k == 8:
            return "substring(%s, %s, %s)" % (E(), self.pick(INDEXES + ["1.5"]) if self.chance(0.9) else self.pick(NUMS),
                                              self.pick(["-1", "1", "2", "3", "0", "100"]))
        if k == 9:
            return "format_int(%s, %s)" % (self.expr("num", scope, d), self.pick(["2", "8", "10", "16", "3"]))
        if k == 10:
            return "%s(%s)" % (self.pick(["json.marshal", "json.marshal", "yaml.marshal"]), E("any"))
        if k == 11:
            opts = self.pick(['{"pretty": true}', '{"indent": "  "}', '{"prefix": "> ", "pretty": true}',
                              '{"pretty": false, "indent": "\\t"}', '{}'])
            return "json.marshal_with_options(%s, %s)" % (E("any"), opts)
        if k == 12:
            f = self.pick(["base64.encode", "base64url.encode", "base64url.encode_no_pad", "hex.encode", "urlquery.encode",
                           "crypto.md5", "crypto.sha1", "crypto.sha256", "glob.quote_meta", "strings.reverse"])
            return "%s(%s)" % (f, E())
        if k == 13:
            return self.pick(["base64.decode(%s)" % self.pick([self.q(self.pick(B64)), "base64.encode(%s)" % E()]),
                              "base64url.decode(base64url.encode_no_pad(%s))" % E(),
                              "hex.decode(hex.encode(%s))" % E(),
                              "urlquery.decode(%s)" % self.pick([self.q(self.pick(URIS)), "urlquery.encode(%s)" % E()])])
        if k == 14:
            pat = self.pick(RAW_REGEXES) if self.chance(0.3) else self.q(self.pick(REGEXES))
            return "regex.replace(%s, %s, %s)" % (E(), pat, self.q(self.pick(["x", "$1", "<$0>", "${1}z", "", "$$"])))
        if k == 15:
            return "type_name(%s)" % E("any")
        if k == 16:
            return "crypto.hmac.%s(%s, %s)" % (self.pick(["md5", "sha1", "sha256", "sha512"]), E(), E())
        if k == 17:
            ns = self.pick(NS)
            return self.pick(["time.format(%s)" % ns,
                              "time.format([%s, %s])" % (ns, self.q(self.pick(TZS))),
                              "time.format([%s, %s, %s])" % (ns, self.q(self.pick(TZS)), self.q(self.pick(FORMAT_LAYOUTS))),
                              "time.weekday(%s)" % self.ns_arg()])
        if k == 18:
            return "split(%s, %s)[%s]" % (E(), self.q(self.pick(SEPS)), self.pick(INDEXES))
        if k == 19:
            return "object.get(%s, %s, %s)" % (E("obj:str"), self.q(self.pick(["a", "b", "k"])), E())
        if k == 20:
            c = self.user_call("str", scope, d)
            if c:
                return c
        if k == 21:
            return "strings.replace_n({%s: %s, %s: %s}, %s)" % (self.q(self.pick(["a", "o", "."])), E(),
                                                               self.q(self.pick(["b", "foo", ""])), E(), E())
        if k == 22:
            return "%s[%s]" % (self.dynamic_array("str", scope, d), self.pick(INDEXES))
        if k == 23:
            return "urlquery.encode_object(%s)" % self.pick(['{"a": "1", "b": ["x", "y"]}', '{"k": {"v", "w"}}', E("obj:str"),
                                                             '{"é": "a b", "": ""}'])
        if k == 24:
            return "strings.render_template(%s, %s)" % (self.q(self.pick(TEMPLATE_STRS)),
                                                         self.pick(['{"a": 1, "b": "x", "xs": [1, 2]}', '{"a": false, "b": 0, "xs": []}',
                                                                    '{"a": [1], "b": {"c": 2}, "xs": {"k": 1}}']))
        if k == 25:
            return "concat(\"\", [%s])" % ", ".join(E() for _ in range(self.n(1, 3)))
        if k == 26:
            return "json.marshal(%s)" % self.pick([E("obj:any"), E("set:any"), E("arr:any"), E("num")])
        if k == 27:
            return "substring(%s, %s, 1)" % (E(), self.pick(["0", "1", "2", "count(%s) - 1" % self.leaf("str", scope)]))
        return self.str_lit() if self.chance(0.3) else "%s(%s)" % (self.pick(["upper", "lower"]), self.sprintf(scope, d))

    def bool_expr(self, kind, scope, d):
        k = self.n(0, 24)
        E = lambda kk: self.expr(kk, scope, d)
        if k < 4:
            kk = self.pick(["num", "num", "str", "arr:num", "obj:num", "set:str", "any"])
            op = self.pick(["==", "!=", "<", "<=", ">", ">="])
            return "%s %s %s" % (self.paren(E(kk)), op, self.paren(E(kk)))
        if k == 4:
            c = self.pick(["arr:num", "set:str", "obj:num", "arr:str", "set:num"])
            e = elem_of(c)
            return "%s in %s" % (self.paren(E(e)), self.paren(E(c)))
        if k == 5:
            return "%s(%s, %s)" % (self.pick(["startswith", "endswith", "contains"]), E("str"), E("str"))
        if k == 6:
            pat = self.pick(RAW_REGEXES) if self.chance(0.3) else self.q(self.pick(REGEXES))
            return "regex.match(%s, %s)" % (pat, E("str"))
        if k == 7:
            return "glob.match(%s, %s, %s)" % (self.q(self.pick(GLOBS)), self.pick(['["."]', "[]", "null", '["/", "."]']),
                                                E("str") if self.chance(0.5) else self.q(self.pick(["a.com", "foo.bar", "a/b/c", "x"])))
        if k == 8:
            return "%s(%s)" % (self.pick(["is_number", "is_string", "is_array", "is_object", "is_set", "is_boolean", "is_null"]),
                               E("any"))
        if k == 9:
            return self.pick(["semver.is_valid(%s)" % self.q(self.pick(SEMVERS)),
                              "net.cidr_contains(%s, %s)" % (self.q(self.pick(CIDRS)), self.q(self.pick(IPS + CIDRS))),
                              "net.cidr_intersects(%s, %s)" % (self.q(self.pick(CIDRS)), self.q(self.pick(CIDRS))),
                              "net.cidr_is_valid(%s)" % self.q(self.pick(CIDRS + IPS))])
        if k == 10:
            return "%s(%s)" % (self.pick(["json.is_valid", "yaml.is_valid", "base64.is_valid", "regex.is_valid"]),
                               self.pick([E("str"), self.q(self.pick(JSONS + YAMLS + B64 + REGEXES))]))
        if k == 11:
            return "object.subset(%s, %s)" % (E(self.pick(["obj:num", "arr:num", "set:num"])),
                                              E(self.pick(["obj:num", "arr:num", "set:num"])))
        if k == 12:
            return "strings.any_%s_match(%s, %s)" % (self.pick(["prefix", "suffix"]), E(self.pick(["arr:str", "set:str", "str"])),
                                                    E(self.pick(["arr:str", "str"])))
        if k == 13:
            c = self.user_call("bool", scope, d)
            if c:
                return c
        if k == 14:
            return "count(%s) %s %s" % (E(self.pick(["arr:num", "set:str", "obj:any", "str"])), self.pick([">", "==", "<="]),
                                        self.pick(SMALL_INTS))
        if k == 15:
            return "regex.globs_match(%s, %s)" % (self.q(self.pick(["a.*", "b+", "[a-c]", "x"])), self.q(self.pick(["a.+", "b", "c*"])))
        if k == 16:
            return "regex.template_match(%s, %s, \"{\", \"}\")" % (self.q(self.pick(["urn:foo:{.*}", "a{[0-9]+}b", "{x}"])),
                                                                 E("str") if self.chance(0.3) else self.q(self.pick(["urn:foo:bar", "a12b", "ab"])))
        if k == 17:
            return "crypto.hmac.equal(%s, %s)" % (E("str"), E("str"))
        if k == 18:
            x = self.fresh()
            c = self.pick(["arr:num", "set:str", "obj:num"])
            return "count([%s | some %s in %s; %s]) %s 0" % (x, x, E(c), self.cond_on(x, elem_of(c), scope, d),
                                                            self.pick([">", "=="]))
        return "%s %s %s" % (self.paren(E("num")), self.pick(["<", ">", "==", "!=", ">=", "<="]), self.paren(E("num")))

    def cond_on(self, x, kind, scope, d):
        if kind == "num":
            return "%s %s %s" % (x, self.pick([">", "<", "!=", ">=", "=="]), self.num_lit())
        if kind == "str":
            return self.pick(["startswith(%s, %s)" % (x, self.str_lit()), "%s != %s" % (x, self.str_lit()),
                              "count(%s) > %s" % (x, self.pick(SMALL_INTS)), "regex.match(%s, %s)" % (self.q(self.pick(REGEXES)), x)])
        return "%s != %s" % (x, self.leaf("any", scope))

    def arr_expr(self, kind, scope, d):
        e = elem_of(kind)
        k = self.n(0, 17)
        E = lambda kk=kind: self.expr(kk, scope, d)
        if k < 3:
            items = [self.expr(e, scope, d) for _ in range(self.n(0, 4))]
            if items and self.chance(0.3):
                return "[\n\t\t%s,\n\t]" % ",\n\t\t".join(items)
            return "[%s%s]" % (", ".join(items), "," if items and self.chance(0.15) else "")
        if k == 3:
            return "array.concat(%s, %s)" % (E(), E())
        if k == 4:
            return "array.slice(%s, %s, %s)" % (E(), self.pick(INDEXES), self.pick(INDEXES + ["100"]))
        if k == 5:
            return "array.reverse(%s)" % E()
        if k == 6 and e in ("num", "str", "any"):
            return "sort(%s)" % E(self.pick(["arr:" + e, "set:" + e]))
        if k in (7, 8, 9):
            return self.comprehension("arr", e, scope, d)
        if e == "num":
            return self.pick(["numbers.range(%s, %s)" % (self.pick(SMALL_INTS), self.pick(SMALL_INTS)),
                              "numbers.range_step(%s, %s, %s)" % (self.pick(SMALL_INTS), self.pick(["10", "7", "-4"]),
                                                                  self.pick(["1", "2", "3", "0"])),
                              "time.clock(%s)" % self.ns_arg(), "time.date(%s)" % self.ns_arg(),
                              "time.diff(%s, %s)" % (self.ns_arg(), self.ns_arg()),
                              "indexof_n(%s, %s)" % (self.expr("str", scope, d), self.q(self.pick(["a", "o", "", "ab"]))),
                              self.fill("[%s | some @ in %%s]" % self.pick(["(@ * 2)", "(@ + 0.5)", "(0 - @)", "(@ / 3)", "abs(@)", "(@ %% 3)"])) % E()])
        if e == "str":
            pat = self.pick(RAW_REGEXES) if self.chance(0.3) else self.q(self.pick(REGEXES))
            return self.pick(["split(%s, %s)" % (self.expr("str", scope, d), self.q(self.pick(SEPS))),
                              "regex.split(%s, %s)" % (pat, self.expr("str", scope, d)),
                              "regex.find_n(%s, %s, %s)" % (pat, self.expr("str", scope, d), self.pick(["-1", "1", "2", "0"])),
                              self.fill("[lower(@) | some @ in %s]") % E(),
                              "sort(object.keys(%s))" % self.expr("obj:any", scope, d),
                              self.fill("[sprintf(\"%%v\", [@]) | some @ in %s]") % self.expr("arr:any", scope, d)])
        return "json.unmarshal(%s)" % self.q(self.pick(["[1, 2.0, 1e3]", "[]", "[\\\"a\\\", null, [1]]", "[0.1, -0]"]))

    def set_expr(self, kind, scope, d):
        e = elem_of(kind)
        k = self.n(0, 14)
        E = lambda kk=kind: self.expr(kk, scope, d)
        if k < 2:
            items = [self.expr(e, scope, d) for _ in range(self.n(1, 4))]
            return "{%s}" % ", ".join(items)
        if k < 6:
            return "%s %s %s" % (self.paren(E()), self.pick(["|", "&", "-"]), self.paren(E()))
        if k == 6:
            return "%s({%s, %s})" % (self.pick(["union", "intersection"]), E(), E())
        if k in (7, 8, 9):
            return self.comprehension("set", e, scope, d)
        if k == 10 and e in ("str", "any"):
            return "object.keys(%s)" % self.expr("obj:any", scope, d)
        if k == 11 and e in ("str", "any"):
            return "net.cidr_merge(%s)" % self.pick(['["10.0.0.0/25", "10.0.0.128/25"]', '{"192.168.1.0/24", "192.168.0.0/24"}',
                                                     '["10.0.0.1", "10.0.0.0/8"]', '["2001:db8::/33", "2001:db8:8000::/33"]'])
        if k == 12 and e in ("str", "any"):
            return "graph.reachable(%s, %s)" % (self.pick(['{"a": ["b"], "b": ["c"], "c": []}', '{"a": {"b"}, "b": {"a"}}',
                                                           '{"x": []}']), self.pick(['["a"]', '{"b"}', '["z"]']))
        return self.fill("{@ | some @ in %s}") % E("arr:" + e)

    def obj_expr(self, kind, scope, d):
        e = elem_of(kind)
        k = self.n(0, 20)
        E = lambda kk=kind: self.expr(kk, scope, d)
        if k < 3:
            keys = [self.q(self.pick(["a", "b", "c", "k", "a.b", "", "x y", "1"])) if self.chance(0.8) else self.expr("str", scope, d)
                    for _ in range(self.n(0, 3))]
            items = ["%s: %s" % (key, self.expr(e, scope, d)) for key in keys]
            if items and self.chance(0.3):
                return "{\n\t\t%s,\n\t}" % ",\n\t\t".join(items)
            return "{%s}" % ", ".join(items)
        if k < 5:
            return "object.union(%s, %s)" % (E(), E())
        if k == 5:
            return "object.union_n([%s])" % ", ".join(E() for _ in range(self.n(0, 3)))
        if k == 6:
            return "object.remove(%s, %s)" % (E(), self.pick(['["a"]', '{"b", "c"}', '{"a": 1}', "[]", '["x", "k"]']))
        if k == 7:
            return "object.filter(%s, %s)" % (E(), self.pick(['["a"]', '{"b", "c"}', '{"a": 1}', "[]", '["k", "a"]']))
        if k == 8:
            return "json.filter(%s, %s)" % (E("obj:any"), self.pick(['["a"]', '["a/b", "c"]', '{"k"}', '[["a", "b"]]']))
        if k == 9:
            return "json.remove(%s, %s)" % (E("obj:any"), self.pick(['["a"]', '["a/b", "c"]', '{"k"}', '[["a", "b"]]']))
        if k == 10:
            ops = []
            for _ in range(self.n(1, 3)):
                op = self.pick(["add", "remove", "replace", "copy", "move", "test"])
                path = self.pick(["/a", "/b", "/a/b", "/-", "/k", "/x~1y", "", "/0"])
                o = '{"op": "%s", "path": "%s"' % (op, path)
                if op in ("add", "replace", "test"):
                    o += ", \"value\": %s" % self.expr(self.pick(["num", "str", "obj:num", "arr:num"]), scope, d)
                if op in ("copy", "move"):
                    o += ', "from": "%s"' % self.pick(["/a", "/b", "/k", "/zz"])
                ops.append(o + "}")
            return "json.patch(%s, [%s])" % (E(), ", ".join(ops))
        if k == 11:
            return "%s(%s)" % self.pick([("yaml.unmarshal", self.q(self.pick(YAMLS))), ("json.unmarshal", self.q(self.pick(JSONS))),
                                         ("json.unmarshal", "json.marshal(%s)" % E()), ("yaml.unmarshal", "yaml.marshal(%s)" % E())])
        if k == 12:
            return "urlquery.decode_object(%s)" % self.q(self.pick(URIS))
        if k in (13, 14, 15):
            return self.comprehension("obj", e, scope, d)
        if k == 16:
            return "json.patch(%s, [])" % E()
        if k == 17:
            return self.fill("{@k: %s | some @k, @v in %%s}" % self.pick(["@v", "[@v]", "count(@k)", "upper(@k)", "{@v}"])) % E("obj:any")
        return "object.union(%s, {%s: %s})" % (E(), self.q(self.pick(["a", "z"])), self.expr(e, scope, d))

    # ---- comprehensions ------------------------------------------------------------------
    def generator_clause(self, inner, d):
        """`some x in C`, `some k, v in C`, `C[x]`, or `x := C[_]`; binds into inner."""
        ck = self.pick(["arr:num", "arr:str", "set:str", "set:num", "obj:num", "obj:str", "arr:num"])
        coll = self.paren(self.expr(ck, inner, max(d - 1, 0)))
        x = self.fresh()
        e = elem_of(ck)
        k = self.n(0, 5)
        if k < 2:
            inner[x] = e
            return "some %s in %s" % (x, coll)
        if k < 4:
            y = self.fresh()
            inner[x] = "str" if ck.startswith("obj") else ("num" if ck.startswith("arr") else e)
            inner[y] = e
            return "some %s, %s in %s" % (x, y, coll)
        if k == 4 and not coll.startswith(("{", "[")):
            inner[x] = e
            return "%s := %s[_]" % (x, coll) if ck.startswith(("arr", "obj")) else "some %s in %s" % (x, coll)
        inner[x] = e
        return "some %s in %s" % (x, coll)

    def comprehension(self, ckind, e, scope, d):
        inner = dict(scope)
        body = [self.generator_clause(inner, d) for _ in range(self.n(1, 3 if d > 1 else 2))]
        if self.chance(0.5):
            v = self.pick(sorted(set(inner) - set(scope)))
            body.append(self.cond_on(v, inner[v], inner, d))
        if self.chance(0.2):
            y = self.fresh()
            body.append("%s := %s" % (y, self.expr(e, inner, max(d - 1, 0))))
            inner[y] = e
        head = self.expr(e, inner, max(d - 1, 0)) if not self.chance(0.5) else (self.var(
            {k: v for k, v in inner.items() if k not in scope}, e) or self.expr(e, inner, max(d - 1, 0)))
        head = self.paren(head)
        sep = "; " if self.chance(0.8) else "\n\t\t"
        text = sep.join(body)
        if ckind == "arr":
            return "[%s | %s]" % (head, text)
        if ckind == "set":
            return "{%s | %s}" % (head, text)
        key = self.var({k: v for k, v in inner.items() if k not in scope}, "str") or self.expr("str", inner, 0)
        return "{%s: %s | %s}" % (key, head, text)

    # ---- statements and bodies -----------------------------------------------------------
    def statement(self, scope, d=3):
        """(text, {bound var: kind})"""
        k = self.n(0, 19)
        if k < 6:
            x = self.fresh()
            kk = self.pick(["num", "str", "arr:num", "arr:str", "obj:num", "set:str", "bool", "obj:any", "any", "num"])
            return "%s%s%s" % (x, self.assign(), self.expr(kk, scope, d)), {x: kk}
        if k < 8:
            inner = dict(scope)
            t = self.generator_clause(inner, d)
            return t, {v: kk for v, kk in inner.items() if v not in scope}
        if k < 11:
            return self.expr("bool", scope, d), {}
        if k == 11:
            x, y = self.fresh(), self.fresh()
            c = self.pick(["obj:num", "set:str", "arr:num", "obj:str"])
            inner = dict(scope, **{x: "str" if c.startswith("obj") else "num", y: elem_of(c)})
            conds = [self.cond_on(y, elem_of(c), inner, 1)]
            use_key = self.chance(0.5)
            if use_key:
                conds.append(self.cond_on(x, inner[x], inner, 1))
            kv = "%s, %s" % (x if use_key else "_", y) if use_key or self.chance(0.5) else y
            return "every %s in %s {\n\t\t%s\n\t}" % (kv, self.paren(self.expr(c, scope, d)), "\n\t\t".join(conds)), {}
        if k == 12:
            x = self.fresh()
            c = self.pick(["obj:num", "arr:num", "set:str", "arr:str"])
            if c.startswith("obj"):
                return "%s, %s in %s" % (self.q(self.pick(["a", "b", "k"])), self.expr("num", scope, 1),
                                         self.paren(self.expr(c, scope, d))), {}
            return "%s := %s in %s" % (x, self.paren(self.expr(elem_of(c), scope, 1)), self.paren(self.expr(c, scope, d))), {x: "bool"}
        if k == 13:
            return "not %s" % self.expr("bool", scope, d), {}
        if k == 14:
            x = self.fresh()
            return "%s = %s" % (x, self.expr("num", scope, d)), {x: "num"}
        if k == 15 and self.rules:
            return self.with_statement(scope), {}
        if k == 16:
            x, y = self.fresh(), self.fresh()
            return "[%s, %s] := %s" % (x, y, self.pick(["[1, \"a\"]", "split(\"a.b\", \".\")", "[input.n, input.s]",
                                                       "numbers.range(1, 2)"])), {x: "any", y: "any"}
        if k == 17:
            x = self.fresh()
            return "some %s\n\t%s[%s] %s %s" % (x, self.pick(["input.xs", "data.d.list"]), x,
                                                self.pick([">", "<", "!="]), self.num_lit()), {x: "num"}
        x = self.fresh()
        return "%s%s%s" % (x, self.assign(), self.comprehension(self.pick(["arr", "set", "obj"]),
                                                               self.pick(["num", "str"]), scope, d)), {x: "any"}

    def with_statement(self, scope):
        name, kind = self.pick(self.rules)
        use = name if not kind.startswith("p") else "count(%s)" % name
        plain = [n for n, _ in self.rules if "(" not in n]
        targets = []
        for _ in range(self.n(1, 2)):
            k = self.n(0, 6)
            if k == 0:
                targets.append("input.%s as %s" % (self.pick(["n", "s", "xs", "o", "nested.a.b"]), self.leaf("any", {})))
            elif k == 1:
                targets.append("data.d.%s as %s" % (self.pick(["limits.max", "users.alice.age", "list", "name",
                                                               "users.bob", "cfg.x.y"]), self.leaf("any", {})))
            elif k == 2 and self.funcs:
                f, args, r = self.pick(self.funcs)
                others = [g for g, a, rr in self.funcs if g != f and len(a) == len(args)]
                repl = self.pick(others) if others and self.chance(0.5) else self.leaf(r, {})
                targets.append("%s as %s" % (f, repl))
            elif k == 3:
                targets.append(self.pick(["upper as lower", "count as sum", "concat as sprintf", "startswith as endswith",
                                          "sprintf as concat", "time.now_ns as 0", "json.marshal as yaml.marshal",
                                          "abs as round", "count as 3"]))
            elif k == 4:
                other = self.pick(plain) if plain else name
                if other != name and other not in use:
                    targets.append("data.p.%s as %s" % (other, self.leaf("any", {})))
                else:
                    targets.append("input as {\"n\": 2, \"s\": \"w\"}")
            else:
                targets.append("input as %s" % self.pick(['{"n": 1.5, "xs": [3, 1, 2]}', "{}", '{"s": "ABC", "o": {"a": 1}}',
                                                          '{"nested": {"a": {"b": [1]}}}']))
        x = self.fresh()
        scope[x] = "any"
        return "%s%s%s with %s" % (x, self.assign(), use, " with ".join(targets))

    def body(self, scope, n=None, d=3):
        scope = dict(scope)
        parts = []
        for _ in range(n if n is not None else self.n(1, 4)):
            t, b = self.statement(scope, d)
            parts.append(t)
            scope.update(b)
        return parts, scope

    def render(self, parts):
        if len(parts) == 1 and "\n" not in parts[0] and not re.match(r"^[\w\[\], ]+ ?:?=", parts[0]) and self.chance(0.35):
            return parts[0]  # `if` without braces
        if len(parts) <= 3 and all("\n" not in p for p in parts) and self.chance(0.3):
            return "{ %s }" % "; ".join(parts)
        lines = []
        for p in parts:
            lines.append(p + ("  # " + self.pick(["why", "step", "TODO: none", "ok;}", "# nested"]) if self.chance(0.1) else ""))
        return "{\n\t" + "\n\t".join(lines) + "\n}"

    def value_of(self, scope, kind):
        v = self.var({k: t for k, t in scope.items()}, kind)
        if v and self.chance(0.5):
            return v
        return self.expr(kind, scope, self.n(1, 3))

    # ---- rules ---------------------------------------------------------------------------
    def name(self, pool):
        n = self.pick(pool)
        if n in self.used_names:
            n = "%s%d" % (n, len(self.used_names))
        self.used_names.add(n)
        return n

    def value_kind(self):
        return self.pick(["num", "str", "bool", "arr:num", "arr:str", "set:str", "set:num", "obj:num", "obj:any", "num", "str"])

    def rule(self):
        k = self.n(0, 21)
        a = self.assign()
        if k < 3:  # a constant from a deep expression
            n, kind = self.name(_RULES), self.value_kind()
            text = "%s%s%s" % (n, a if self.chance(0.8) else " = ", self.expr(kind, {}, self.n(2, 5)))
            self.rules.append((n, kind))
            return text
        if k < 6:  # a complete rule with a body
            n, kind = self.name(_RULES), self.value_kind()
            parts, scope = self.body({})
            text = "%s%s%s if %s" % (n, a, self.paren(self.value_of(scope, kind)), self.render(parts))
            if self.chance(0.3):
                text = "default %s := %s\n\n%s" % (n, self.const(kind), text)
            self.rules.append((n, kind))
            return text
        if k < 8:  # an else chain
            n, kind = self.name(_RULES), self.pick(["num", "str", "bool", "arr:num"])
            parts, scope = self.body({}, self.n(1, 2))
            text = "%s%s%s if %s" % (n, a, self.paren(self.value_of(scope, kind)), self.render(parts))
            for _ in range(self.n(1, 3)):
                parts, scope = self.body({}, self.n(1, 2))
                text += "%selse %s %s if %s" % (self.pick([" ", "\n"]), self.pick([":=", "="]),
                                                self.paren(self.value_of(scope, kind)), self.render(parts))
            if self.chance(0.5):
                text += " else := %s" % self.paren(self.expr(kind, {}, 2))
            self.rules.append((n, kind))
            return text
        if k < 10:  # a boolean rule, maybe several definitions and a default
            n = self.name(_RULES)
            texts = []
            for _ in range(self.n(1, 2)):
                parts, _ = self.body({})
                texts.append("%s if %s" % (n, self.render(parts)))
            if self.chance(0.5):
                texts.insert(0, "default %s := false" % n)
            self.rules.append((n, "bool"))
            return "\n\n".join(texts)
        if k < 12:  # a partial set
            n, e = self.name(["ps", "names", "found", "hits", "tags"]), self.pick(["num", "str"])
            texts = []
            for _ in range(self.n(1, 2)):
                scope = {}
                gen = self.generator_clause(scope, 2)
                parts, scope = self.body(scope, self.n(0, 2))
                texts.append("%s contains %s if %s" % (n, self.paren(self.value_of(scope, e)), self.render([gen] + parts)))
            self.rules.append((n, "pset:" + e))
            self.rules.append(("count(%s)" % n, "num"))
            return "\n\n".join(texts)
        if k < 14:  # a partial object of objects, read back as po[x].y
            n = self.name(["po", "byname", "idx", "table"])
            scope = {}
            gen = self.generator_clause(scope, 2)
            keys = sorted(v for v, t in scope.items() if t in ("str", "num"))
            key = keys[0] if keys and self.chance(0.8) else self.expr("str", scope, 1)
            parts, scope = self.body(scope, self.n(0, 2))
            yk, zk = self.pick(["num", "str"]), self.pick(["arr:num", "str", "bool"])
            text = "%s[%s] := {\"y\": %s, \"z\": %s} if %s" % (n, key, self.value_of(scope, yk), self.value_of(scope, zk),
                                                              self.render([gen] + parts))
            self.rules.append((n, "pobj:obj"))
            x = self.fresh("k")
            # a reader through the partial object with a variable key
            reader = self.name(_RULES)
            self.rules.append((reader, "arr:" + yk))
            via = "data.p.%s" % n if self.chance(0.5) else n
            text += "\n\n%s := [%s[%s].y | some %s, _ in %s]" % (reader, via, x, x, n) if self.chance(0.5) else \
                self.fill("\n\n%s := [@ | %s[%s].y = @]") % (reader, via, x)
            return text
        if k < 16:  # functions, calling earlier functions
            n = self.name(_FUNCS)
            arity = self.n(1, 2)
            argk = [self.pick(["num", "str", "arr:num", "num"]) for _ in range(arity)]
            rk = self.pick(["num", "str", "bool", "arr:num"])
            params = [self.fresh("a") for _ in range(arity)]
            scope = dict(zip(params, argk))
            texts = []
            if self.chance(0.4) and argk[0] == "num":
                texts.append("%s(%s) := %s if %s < 0" % (n, ", ".join(params), self.paren(self.expr(rk, scope, 2)), params[0]))
            parts, sc2 = self.body(scope, self.n(0, 2))
            head = "%s(%s)%s%s" % (n, ", ".join(params), a, self.paren(self.value_of(sc2, rk)))
            texts.append(head + (" if %s" % self.render(parts) if parts else ""))
            if parts and self.chance(0.3):
                texts[-1] += " else := %s" % self.const(rk)
            if self.chance(0.15):
                texts.append("default %s(%s) := %s" % (n, ", ".join("_" for _ in params), self.const(rk)))
            self.funcs.append((n, argk, rk))
            return "\n\n".join(texts)
        if k == 16:  # ref heads
            n = self.name(["tree", "cfg", "conf"])
            texts = []
            for _ in range(self.n(1, 3)):
                path = self.pick([".a.b", ".a.c", ".b", ".c.d.e", "[\"e\"]", ".x[\"y z\"]"])
                kind = self.pick(["num", "str", "arr:num"])
                texts.append("%s%s%s%s" % (n, path, a, self.expr(kind, {}, 2)))
            self.rules.append((n, "obj:any"))
            return "\n\n".join(dict.fromkeys(texts))
        if k == 17:  # a ref head with a variable key and a multi-value ref head
            n = self.name(["tree", "grp", "by"])
            scope = {}
            gen = self.generator_clause(scope, 2)
            keys = sorted(v for v, t in scope.items() if t == "str")
            if keys and self.chance(0.6):
                text = "%s[%s].v%s%s if %s" % (n, keys[0], a, self.value_of(scope, "num"), self.render([gen]))
                self.rules.append((n, "obj:any"))
            else:
                text = "%s.%s contains %s if %s" % (n, self.pick(["a", "b"]), self.value_of(scope, "str"), self.render([gen]))
                self.rules.append((n, "obj:any"))
            return text
        if k == 18:  # every over objects and sets
            n = self.name(_RULES)
            parts, scope = self.body({}, self.n(0, 1))
            st, _ = self.statement(dict(scope), 2)
            x, y = self.fresh(), self.fresh()
            c = self.pick(["obj:num", "set:num", "set:str", "obj:str", "arr:num"])
            inner = dict(scope, **{x: "str", y: elem_of(c)})
            ev = "every %s, %s in %s {\n\t\t%s\n\t}" % ("_", y, self.paren(self.expr(c, scope, 3)),
                                                     self.cond_on(y, elem_of(c), inner, 1))
            self.rules.append((n, "bool"))
            return "%s if %s" % (n, self.render(parts + [ev]))
        if k == 19:  # a rule over earlier rules, nested comprehensions
            n = self.name(_RULES)
            x, y = self.fresh(), self.fresh()
            c1 = self.pick(["arr:num", "set:str", "obj:num"])
            inner = {x: elem_of(c1)}
            c2 = self.expr(self.pick(["arr:num", "arr:str"]), inner, 2)
            inner[y] = "any"
            text = "%s%s[[%s | some %s in %s; %s] | some %s in %s]" % (
                n, a, self.pick(["[%s, %s]" % (x, y), y, "{%s: %s}" % ("\"k\"", y)]), y, self.paren(c2),
                self.cond_on(y, "any", inner, 1), x, self.paren(self.expr(c1, {}, 3)))
            self.rules.append((n, "arr:any"))
            return text
        if k == 20 and self.rules:  # with on nested data paths and functions
            n = self.name(_RULES)
            parts, scope = self.body({}, self.n(0, 2))
            st = self.with_statement(scope)
            self.rules.append((n, "any"))
            return "%s%s%s if %s" % (n, a, self.pick(sorted(scope)), self.render(parts + [st]))
        n, kind = self.name(_RULES), self.value_kind()
        text = "%s%s%s" % (n, a, self.expr(kind, {}, 4))
        self.rules.append((n, kind))
        return text

    # ---- broken programs -----------------------------------------------------------------
    def breakage(self):
        return self.pick([
            "bad := upper(1)", "bad := count(1, 2)", "bad := nofn(1)", "bad if { x := y }",
            "bad := x if { some x; x > 1 }", "bad := sprintf(\"%d\")", "bad := numbers.range(1, \"a\")",
            "bad := 1\n\nbad := 2", "bad := data.p.bad", "bad := [1, 2", "bad := {\"a\": 1}.b.c + 1",
            "bad if { every x in [1] { y := 1 } }", "bad := 1 + \"a\"", "bad if {\n\tx := 1\n\tx := 2\n}",
            "bad := concat(\",\", [1, 2])", "bad(x) := x + 1\n\nbad(x, y) := y", "bad := f(1) if true",
            "bad[x] := 1 if { some x in [1, 2] }\n\nbad[\"k\"] := 2\n\nbad := 3", "bad := to_number(\"x\")",
            "bad := {x | x := 1 / 0}", "bad := [1, 2][\"a\"]", "bad := input.n with input.n as x",
        ])

    # ---- the case ------------------------------------------------------------------------
    def module(self):
        head = "package p\n\n"
        if self.chance(0.2):
            head += "import rego.v1\n\n"
        if self.chance(0.1):
            head += self.pick(["import data.d.users\n\n", "import input.o as io\n\n"])
        if self.chance(0.15):
            head = "# generated: expression style\n" + head
        rules = [self.rule() for _ in range(self.n(3, 7))]
        text = head + "\n\n".join(rules) + "\n"
        if self.chance(0.07):
            text += "\n" + self.breakage() + "\n"
        return text

    def query(self):
        k = self.n(0, 9)
        names = [n for n, kind in self.rules if "(" not in n]
        if k < 6 or not names:
            return "data.p"
        if k < 8:
            return "data.p." + self.pick(names)
        if self.funcs and self.chance(0.5):
            f, args, _ = self.pick(self.funcs)
            return "x := data.p.%s(%s)" % (f, ", ".join(self.const(a) for a in args))
        return "x := [%s]" % ", ".join("data.p." + self.pick(names) for _ in range(2))

    # ---- documents -----------------------------------------------------------------------
    def typed_json(self, kind):
        base, e = kind.split(":")[0], elem_of(kind)
        if base == "num":
            return RawNumber(self.pick(NUMS))
        if base == "str":
            return json.loads('"%s"' % self.pick(STRS + ["a.com", "foo.bar"]))
        if base == "bool":
            return self.chance(0.5)
        if base == "arr":
            return [self.typed_json(e) for _ in range(self.n(0, 4))]
        if base == "obj":
            return {self.pick(["a", "b", "c", "k", "x y"]): self.typed_json(e) for _ in range(self.n(0, 3))}
        return self.typed_json(self.pick(["num", "str", "bool", "arr:num"]))

    def wrong(self, kind):
        return self.typed_json(self.pick(["num", "str", "bool", "arr:num", "obj:num"])) if self.chance(0.08) else self.typed_json(kind)

    def input_doc(self):
        doc = {"n": self.wrong("num"), "m": self.wrong("num"), "s": self.wrong("str"), "t": self.wrong("str"),
               "xs": self.wrong("arr:num"), "ss": self.wrong("arr:str"), "o": self.wrong("obj:num"), "so": self.wrong("obj:str"),
               "ip": self.pick(IPS), "ver": self.pick(SEMVERS), "ts": self.pick(TIMES), "flag": self.chance(0.5),
               "nested": {"a": {"b": self.wrong("arr:num")}}}
        for key in list(doc):
            if self.chance(0.08):
                del doc[key]
        return doc

    def data_doc(self):
        users = {}
        for name in self.rng.sample(["alice", "bob", "carol", "dave"], self.n(1, 4)):
            users[name] = {"age": RawNumber(self.pick(["30", "17", "45.5", "0", "-1", "1e2"])),
                           "roles": self.rng.sample(["admin", "dev", "ops", "viewer"], self.n(0, 3)),
                           "email": "%s@%s" % (name, self.pick(["example.com", "corp.io", "x"]))}
        return {"d": {"limits": {"max": RawNumber(self.pick(NUMS)), "min": RawNumber(self.pick(SMALL_INTS))},
                      "users": users, "list": self.typed_json("arr:num"), "names": self.typed_json("arr:str"),
                      "name": self.typed_json("str"), "cfg": {"x": {"y": self.typed_json("any")}}}}


def generate(seed):
    g = ExprGen(seed)
    text = g.module()
    modules = {"p.rego": text}
    case = {"id": "e%d-%d" % (VERSION, seed), "seed": seed, "modules": modules, "data": dump_json(g.data_doc()),
            "query": g.query()}
    if g.chance(0.95):
        case["input"] = dump_json(g.input_doc())
    return case

