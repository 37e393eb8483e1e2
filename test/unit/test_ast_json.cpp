// The AST printers: JSON in the shape of `opa parse --format json`, and the
// pretty tree of `opa parse --format pretty`.

#include <doctest/doctest.h>

#include <initializer_list>
#include <string>

#include "lang/ast_json.hpp"
#include "lang/parse.hpp"

using gavel::lang::AstJsonOptions;
using gavel::lang::module_to_json;
using gavel::lang::module_to_pretty;
using gavel::lang::parse_module;
using gavel::lang::ParseOptions;

namespace {

// Builders for the expected JSON, so each case reads as the tree it states.
std::string join(std::initializer_list<std::string> xs) {
    std::string out;
    for (const auto& x : xs) out += (out.empty() ? "" : ",") + x;
    return out;
}
std::string term(const std::string& type, const std::string& value) {
    return R"({"type":")" + type + R"(","value":)" + value + "}";
}
std::string var(const std::string& name) { return term("var", "\"" + name + "\""); }
std::string str(const std::string& s) { return term("string", "\"" + s + "\""); }
std::string num(const std::string& n) { return term("number", n); }
std::string boolean(bool b) { return term("boolean", b ? "true" : "false"); }
std::string ref(std::initializer_list<std::string> parts) { return term("ref", '[' + join(parts) + "]"); }
std::string op(const std::string& name) { return ref({var(name)}); }
std::string array(std::initializer_list<std::string> xs) { return term("array", "[" + join(xs) + "]"); }
std::string set(std::initializer_list<std::string> xs) { return term("set", "[" + join(xs) + "]"); }
std::string call(std::initializer_list<std::string> xs) { return term("call", '[' + join(xs) + "]"); }
// An expression: `terms` is a term, or "[...]" for a call.
std::string expr(int index, const std::string& terms, const std::string& extra = "") {
    return R"({"index":)" + std::to_string(index) + extra + R"(,"terms":)" + terms + "}";
}
std::string calls(std::initializer_list<std::string> xs) { return '[' + join(xs) + "]"; }
const std::string true_body = "[" + expr(0, boolean(true)) + "]";
std::string package(const std::string& name) {
    return R"({"package":{"path":[)" + var("data") + "," + str(name) + "]}";
}

std::string json(const std::string& text, bool v0 = false) {
    ParseOptions options;
    options.v0_compatible = v0;
    auto r = parse_module("m.rego", text, options);
    if (!r.ok()) return "ERROR: " + r.diagnostics.format();
    return module_to_json(*r.module);
}

std::string pretty(const std::string& text, bool v0 = false) {
    ParseOptions options;
    options.v0_compatible = v0;
    auto r = parse_module("m.rego", text, options);
    if (!r.ok()) return "ERROR: " + r.diagnostics.format();
    return module_to_pretty(*r.module);
}

}  // namespace

TEST_CASE("json: package, import and a complete rule") {
    CHECK(json("package a.b\nimport data.x.y as z\nimport rego.v1\n\np := 1\n") ==
          R"({"package":{"path":[)" + join({var("data"), str("a"), str("b")}) + "]}," +
              R"("imports":[{"alias":"z","path":)" + ref({var("data"), str("x"), str("y")}) + "}," + R"({"path":)" +
              ref({var("rego"), str("v1")}) + "}]," + R"("rules":[{"body":)" + true_body + R"(,"head":{"ref":[)" +
              var("p") + R"(],"value":)" + num("1") + R"(,"name":"p","assign":true}}]})");
    CHECK(json("package p\nq = \"s\"") == package("p") + R"(,"rules":[{"body":)" + true_body + R"(,"head":{"ref":[)" +
                                              var("q") + R"(],"value":)" + str("s") + R"(,"name":"q"}}]})");
    CHECK(json("package p\ndefault allow := false\nallow if input.ok\n") ==
          package("p") + R"(,"rules":[{"body":)" + true_body + R"(,"default":true,"head":{"ref":[)" + var("allow") +
              R"(],"value":)" + boolean(false) + R"(,"name":"allow","assign":true}},)" + R"({"body":[)" +
              expr(0, ref({var("input"), str("ok")})) + R"(],"head":{"ref":[)" + var("allow") + R"(],"value":)" +
              boolean(true) + R"(,"name":"allow"}}]})");
}

TEST_CASE("json: partial sets and objects") {
    // v0 `p[x] { ... }`: name p, key x, no value.
    CHECK(json("package p\ndeny[msg] {\n  msg := \"no\"\n}\n", true) ==
          package("p") + R"(,"rules":[{"body":[)" + expr(0, calls({op("assign"), var("msg"), str("no")})) +
              R"(],"head":{"ref":[)" + var("deny") + R"(],"key":)" + var("msg") + R"(,"name":"deny"}}]})");
    // v1 `contains`.
    CHECK(json("package p\ndeny contains \"x\" if true\n") ==
          package("p") + R"(,"rules":[{"body":[)" + expr(0, boolean(true)) + R"(],"head":{"ref":[)" + var("deny") +
              R"(],"key":)" + str("x") + R"(,"name":"deny"}}]})");
    // v0 partial object `o[k] = v`: the ref keeps k, which is also the key.
    CHECK(json("package p\no[k] = 1 { k := \"a\" }\n", true) ==
          package("p") + R"(,"rules":[{"body":[)" + expr(0, calls({op("assign"), var("k"), str("a")})) +
              R"(],"head":{"ref":[)" + var("o") + "," + var("k") + R"(],"key":)" + var("k") + R"(,"value":)" +
              num("1") + R"(,"name":"o"}}]})");
    // v1 `a[x] if ...`: a single-value rule with key x and the value true.
    CHECK(json("package p\na[x] if x := 1\n") ==
          package("p") + R"(,"rules":[{"body":[)" + expr(0, calls({op("assign"), var("x"), num("1")})) +
              R"(],"head":{"ref":[)" + var("a") + "," + var("x") + R"(],"key":)" + var("x") + R"(,"value":)" +
              boolean(true) + "}}]}");
}

TEST_CASE("json: functions, wildcards and else chains") {
    CHECK(json("package p\nf(x, _) := y if y := x + 1\n") ==
          package("p") + R"(,"rules":[{"body":[)" +
              expr(0, calls({op("assign"), var("y"), call({op("plus"), var("x"), num("1")})})) +
              R"(],"head":{"ref":[)" + var("f") + R"(],"value":)" + var("y") + R"(,"name":"f","args":[)" + var("x") +
              "," + var("$0") + R"(],"assign":true}}]})");
    // Each else clause carries the first head's ref, name and args, with its own value.
    CHECK(json("package p\nx := 1 if { a } else := 2 if { b } else := 3\n") ==
          package("p") + R"(,"rules":[{"body":[)" + expr(0, var("a")) + R"(],"else":{"body":[)" + expr(0, var("b")) +
              R"(],"else":{"body":)" + true_body + R"(,"head":{"ref":[)" + var("x") + R"(],"value":)" + num("3") +
              R"(,"name":"x","assign":true}},"head":{"ref":[)" + var("x") + R"(],"value":)" + num("2") +
              R"(,"name":"x","assign":true}},"head":{"ref":[)" + var("x") + R"(],"value":)" + num("1") +
              R"(,"name":"x","assign":true}}]})");
    // Wildcards are numbered in source order; an else clause renames a `_` argument afresh.
    std::string out = json("package p\nf(_) := 1 if input[_]\nelse := 2\n");
    CHECK(out.find(R"("args":[)" + var("$0") + "]") != std::string::npos);
    CHECK(out.find(ref({var("input"), var("$1")})) != std::string::npos);
    CHECK(out.find(R"("args":[)" + var("$2") + "]") != std::string::npos);
}

TEST_CASE("json: some, every, not and with") {
    CHECK(json("package p\nq if some x in xs\n") ==
          package("p") + R"(,"rules":[{"body":[)" +
              expr(0, R"({"symbols":[)" + call({ref({var("internal"), str("member_2")}), var("x"), var("xs")}) + "]}") +
              R"(],"head":{"ref":[)" + var("q") + R"(],"value":)" + boolean(true) + R"(,"name":"q"}}]})");
    CHECK(json("package p\nq if { some x, y; x = y }\n") ==
          package("p") + R"(,"rules":[{"body":[)" + expr(0, R"({"symbols":[)" + var("x") + "," + var("y") + "]}") +
              "," + expr(1, calls({op("eq"), var("x"), var("y")})) + R"(],"head":{"ref":[)" + var("q") +
              R"(],"value":)" + boolean(true) + R"(,"name":"q"}}]})");
    CHECK(json("package p\nq if every k, v in xs { k < v }\n") ==
          package("p") + R"(,"rules":[{"body":[)" +
              expr(0, R"({"body":[)" + expr(0, calls({op("lt"), var("k"), var("v")})) + R"(],"domain":)" + var("xs") +
                          R"(,"key":)" + var("k") + R"(,"value":)" + var("v") + "}") +
              R"(],"head":{"ref":[)" + var("q") + R"(],"value":)" + boolean(true) + R"(,"name":"q"}}]})");
    // Without a key, `key` is null as OPA prints it.
    CHECK(json("package p\nq if every v in xs { v }\n").find(R"("key":null,"value":)" + var("v")) != std::string::npos);
    CHECK(json("package p\nq if not data.x with input as 1 with data.y as \"z\"\n") ==
          package("p") + R"(,"rules":[{"body":[{"index":0,"negated":true,"terms":)" + ref({var("data"), str("x")}) +
              R"(,"with":[{"target":)" + var("input") + R"(,"value":)" + num("1") + R"(},{"target":)" +
              ref({var("data"), str("y")}) + R"(,"value":)" + str("z") + R"(}]}],"head":{"ref":[)" + var("q") +
              R"(],"value":)" + boolean(true) + R"(,"name":"q"}}]})");
}

TEST_CASE("json: comprehensions, sets, objects and template strings") {
    CHECK(
        json("package p\ns := {x | some x in [1]}\n") ==
        package("p") + R"(,"rules":[{"body":)" + true_body + R"(,"head":{"ref":[)" + var("s") + R"(],"value":)" +
            term("setcomprehension",
                 R"({"term":)" + var("x") + R"(,"body":[)" +
                     expr(0, R"({"symbols":[)" +
                                 call({ref({var("internal"), str("member_2")}), var("x"), array({num("1")})}) + "]}") +
                     "]}") +
            R"(,"name":"s","assign":true}}]})");
    CHECK(json("package p\no := {k: v | k := 1; v := 2}\n")
              .find(term("objectcomprehension", R"({"key":)" + var("k") + R"(,"value":)" + var("v") + R"(,"body":[)" +
                                                    expr(0, calls({op("assign"), var("k"), num("1")})) + "," +
                                                    expr(1, calls({op("assign"), var("v"), num("2")})) + "]}")) !=
          std::string::npos);
    CHECK(json("package p\na := [x | x := 1]\n").find(R"({"type":"arraycomprehension","value":{"term":)" + var("x")) !=
          std::string::npos);
    // Sets and objects print in OPA's sorted order, duplicates removed; null is {}.
    CHECK(json("package p\ns := {3, \"a\", 1, 1e1, null, 2}\n")
              .find(set({term("null", "{}"), num("1"), num("2"), num("3"), num("1e1"), str("a")})) !=
          std::string::npos);
    CHECK(json("package p\no := {\"b\": 1, \"a\": 2, \"b\": 3}\n")
              .find(term("object", "[[" + str("a") + "," + num("2") + "],[" + str("b") + "," + num("3") + "]]")) !=
          std::string::npos);
    // Text parts are string terms, `{...}` parts are exprs (even a string literal).
    CHECK(json("package p\nt := $\"a{x}b{\"c\"}\"\n")
              .find(term("templatestring", R"({"parts":[)" + str("a") + "," + expr(0, var("x")) + "," + str("b") + "," +
                                               expr(0, str("c")) + R"(],"multi_line":false})")) != std::string::npos);
    CHECK(json("package p\nt := $`x\n{y}`\n").find(R"("multi_line":true)") != std::string::npos);
}

TEST_CASE("json: strings are escaped as Go's encoding/json writes them") {
    CHECK(json("package p\ns := \"q\\\"b\\\\n\\n\\t\\u0001<&>\\u2028\"\n")
              .find(R"({"type":"string","value":"q\"b\\n\n\t\u0001\u003c\u0026\u003e\u2028"})") != std::string::npos);
}

TEST_CASE("json: comments and locations") {
    auto r = parse_module("loc.rego", "package p\n\n# hi\nallow if {\n\tx := 1\n}\n");
    REQUIRE(r.ok());
    std::string plain = module_to_json(*r.module);
    CHECK(plain.find("location") == std::string::npos);
    // Comments are Go structs: capitalised keys, base64 text, always a location.
    CHECK(plain.find(R"("comments":[{"Location":{"file":"loc.rego","row":3,"col":1},"Text":"IGhp"}])") !=
          std::string::npos);
    std::string located = module_to_json(*r.module, true);
    CHECK(located.find(R"("package":{"location":{"file":"loc.rego","row":1,"col":1},"path":[)") != std::string::npos);
    CHECK(located.find(R"({"index":0,"location":{"file":"loc.rego","row":5,"col":2},"terms":[)") != std::string::npos);
    CHECK(located.find(R"({"location":{"file":"loc.rego","row":5,"col":7},"type":"number","value":1})") !=
          std::string::npos);
    CHECK(located.find(R"("head":{"location":{"file":"loc.rego","row":4,"col":1},"ref":[)") != std::string::npos);
    // The generated value `true` has no location.
    CHECK(located.find(R"("value":{"type":"boolean","value":true})") != std::string::npos);

    AstJsonOptions opts;
    opts.locations = true;
    opts.location_text = true;
    opts.comments = false;
    opts.indent = true;
    std::string indented = module_to_json(*r.module, opts);
    CHECK(indented.rfind("{\n  \"package\": {\n    \"location\": {\n      \"file\": \"loc.rego\",\n"
                         "      \"text\": \"cGFja2FnZSBw\",\n      \"row\": 1,\n      \"col\": 1\n    },\n",
                         0) == 0);
    CHECK(indented.find("\"comments\"") == std::string::npos);
    CHECK(indented.find("\"body\": [\n") != std::string::npos);
}

TEST_CASE("json: compiled modules write a bare input or data as OPA's compiler resolves it, a one-element ref") {
    auto r = parse_module("p.rego", "package p\nv := input\nw := data\n");
    REQUIRE(r.ok());
    AstJsonOptions compiled;
    compiled.root_documents_as_refs = true;
    const std::string input_ref = R"({"type":"ref","value":[{"type":"var","value":"input"}]})";
    const std::string data_ref = R"({"type":"ref","value":[{"type":"var","value":"data"}]})";
    CHECK(module_to_json(*r.module, compiled).find(input_ref) != std::string::npos);
    CHECK(module_to_json(*r.module, compiled).find(data_ref) != std::string::npos);
    // A ref's head stays a variable: the package path, `input.x`.
    CHECK(module_to_json(*r.module, compiled).find(R"("path":[{"type":"var","value":"data"})") != std::string::npos);
    auto q = parse_module("q.rego", "package q\nv := input.x\n");
    REQUIRE(q.ok());
    CHECK(
        module_to_json(*q.module, compiled).find(R"([{"type":"var","value":"input"},{"type":"string","value":"x"}])") !=
        std::string::npos);
    // As parsed (`opa parse`), they stay variables.
    CHECK(module_to_json(*r.module, AstJsonOptions{}).find(input_ref) == std::string::npos);
    CHECK(module_to_json(*r.module, AstJsonOptions{}).find(R"({"type":"var","value":"input"})") != std::string::npos);
}

TEST_CASE("json: output is deterministic") {
    const std::string text = "package p\ns := {{\"b\": [1]}, {\"a\": 2}, {3}}\nq[x] { x := s[_] }\n";
    CHECK(json(text, true) == json(text, true));
    CHECK(json(text, true).find(R"(,"key":)" + var("x") + R"(,"name":"q")") != std::string::npos);
}

TEST_CASE("pretty: one node per line, one space per level") {
    CHECK(pretty("package a\n\np := 1\n") ==
          "module\n"
          " package\n"
          "  ref\n"
          "   data\n"
          "   \"a\"\n"
          " rule\n"
          "  head\n"
          "   ref\n"
          "    p\n"
          "   1\n"
          "  body\n"
          "   expr index=0\n"
          "    true\n");
    std::string out = pretty("package a\nimport data.x\n# note\nf(_, y) := z if {\n  not y\n  z := [y | true]\n}\n");
    CHECK(out.find(" import\n  ref\n   data\n   \"x\"\n  \n") != std::string::npos);  // the empty alias too
    CHECK(out.find("   args\n    _\n    y\n   z\n") != std::string::npos);
    CHECK(out.find("   expr negated index=0\n    y\n") != std::string::npos);
    CHECK(out.find("   expr index=1\n    ref\n     assign\n    z\n    arraycomprehension\n     y\n     body\n"
                   "      expr index=0\n       true\n") != std::string::npos);
    CHECK(out.substr(out.size() - 9) == " comment\n");
    std::string every = pretty("package a\nq if every x in [1] { some y in x }\n");
    CHECK(every.find("   expr index=0\n    every\n     x\n     array\n      1\n     body\n      expr index=0\n"
                     "       somedecl\n        call\n") != std::string::npos);
}

TEST_CASE("json: a METADATA block's string fields are its scalars as written, as OPA decodes them") {
    const std::string out = json(
        "package p\n\n# METADATA\n# title: 5.0\n# description: \"\"\n# organizations: [1, yes]\n"
        "# custom:\n#   a: yes\nx := 1\n");
    CHECK(out.find(
              R"("annotations":[{"custom":{"a":"yes"},"organizations":["1","yes"],"scope":"rule","title":"5.0"}])") !=
          std::string::npos);
}

TEST_CASE("json: a null organization or title is left out, as go-yaml v3 decodes it into Go strings") {
    // OPA 1.7.1's `opa parse` of the same block.
    const std::string out = json("package p\n\n# METADATA\n# title: ~\n# organizations: [~, 5, \"\"]\nx := 1\n");
    CHECK(out.find(R"("annotations":[{"organizations":["5",""],"scope":"rule"}])") != std::string::npos);
}

TEST_CASE("json: custom annotation values typed and spelt as OPA's parse writes them (go-yaml v3, then JSON)") {
    // OPA 1.7.1's `opa parse --format json` of the same block.
    const std::string out = json(
        "package p\n\n# METADATA\n# custom:\n#   a: [0x10, 1_000, 1e3, 99999999999999999999, 1e-7, 1e21, -0.0]\n"
        "#   b: [2001-12-14, 2001-12-14t21:59:43.10-05:00, 2001-02-30]\nx := 1\n");
    CHECK(out.find(R"("custom":{"a":[16,1000,1000,100000000000000000000,1e-7,1e+21,-0],)"
                   R"("b":["2001-12-14T00:00:00Z","2001-12-14T21:59:43.1-05:00","2001-02-30"]})") != std::string::npos);
}
