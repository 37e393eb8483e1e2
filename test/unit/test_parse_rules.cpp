// Modules and rules in both dialects.

#include <doctest/doctest.h>

#include "lang/parse.hpp"
#include "test/unit/ast_sexpr.hpp"

using gavel::lang::parse_module;
using gavel::lang::ParseOptions;
using gavel::test::sexpr;

namespace {

ParseOptions v0() {
    ParseOptions o;
    o.v0_compatible = true;
    return o;
}

// All rules of a module, one per line; or the errors.
std::string rules(const std::string& text, ParseOptions options = {}) {
    auto r = parse_module("m.rego", "package p\n" + text, options);
    if (!r.ok()) return "ERROR: " + r.diagnostics.format();
    std::string out;
    for (const auto& rule : r.module->rules) out += sexpr(rule) + "\n";
    return out;
}

}  // namespace

TEST_CASE("package and imports") {
    auto r = parse_module("m.rego", "package a.b[\"c\"]\nimport data.x.y as z\nimport input.q\nimport rego.v1\n");
    REQUIRE(r.ok());
    CHECK(sexpr(r.module->package.path) == "(ref a \"b\" \"c\")");
    REQUIRE(r.module->imports.size() == 3);
    CHECK(sexpr(r.module->imports[0].path) == "(ref data \"x\" \"y\")");
    CHECK(r.module->imports[0].alias == "z");
    CHECK(r.module->imports[1].alias.empty());
    CHECK(r.module->package.loc.line == 1);
    CHECK(r.module->imports[2].loc.line == 4);
}

TEST_CASE("v1 rule forms") {
    CHECK(rules("x := 1") == "(rule (ref x) := 1)\n");
    CHECK(rules("x = 1") == "(rule (ref x) = 1)\n");
    CHECK(rules("allow if input.ok") == "(rule (ref allow) {(ref input \"ok\")})\n");
    CHECK(rules("allow if {\n\tinput.a\n\tinput.b\n}") ==
          "(rule (ref allow) {(ref input \"a\"); (ref input \"b\")})\n");
    CHECK(rules("v := 2 if { true }") == "(rule (ref v) := 2 {true})\n");
    CHECK(rules("deny contains msg if { msg := \"no\" }") == "(rule (ref deny) contains msg {(assign msg \"no\")})\n");
    CHECK(rules("s contains 1") == "(rule (ref s) contains 1)\n");
    CHECK(rules("a.b[c] := d if c := 1; d := 2").rfind("ERROR", 0) == 0);  // one literal after a bare `if`
    CHECK(rules("a.b[c] := 1 if c := \"k\"") == "(rule (ref a \"b\" c) := 1 {(assign c \"k\")})\n");
    CHECK(rules("a[x] if q[x]") == "(rule (ref a x) {(ref q x)})\n");
    CHECK(rules("f(x) := y if y := x + 1") == "(rule (ref f) (args x) := y {(assign y (plus x 1))})\n");
    CHECK(rules("f(x, [y]) if x == y") == "(rule (ref f) (args x (array y)) {(equal x y)})\n");
    CHECK(rules("default allow := false") == "(default (ref allow) := false)\n");
    CHECK(rules("default f(_) := 1") == "(default (ref f) (args _) := 1)\n");
    CHECK(rules("if.foo := 1\nelse.bar := 2") == "(rule (ref if \"foo\") := 1)\n(rule (ref else \"bar\") := 2)\n");
}

// OPA's parseRules: after `if`, one literal unless it is a set literal (then a braced body).
TEST_CASE("the body after if") {
    CHECK(rules("p if { 1 | 1 }") == "(rule (ref p) {(set-of 1 {1})})\n");
    CHECK(rules("p if { x | y }") == "(rule (ref p) {(set-of x {y})})\n");
    CHECK(rules("p if { x }") == "(rule (ref p) {x})\n");
    CHECK(rules("p if { x, y }").rfind("ERROR", 0) == 0);
    ParseOptions logic;
    logic.experimental_keywords = true;
    // With the and/or keywords a braced group is an operand, yet alone still a body.
    CHECK(rules("import future.keywords.or\np if { a }", logic) == "(rule (ref p) {a})\n");
    CHECK(rules("import future.keywords.or\np if { a } or { b }", logic) ==
          "(rule (ref p) {(or (block {a}) (block {b}))})\n");
}

// Each further braced body is another definition of the rule (OPA's parseRules).
TEST_CASE("chained bodies") {
    CHECK(rules("p if { false } { true }") == "(rule (ref p) {false} {true})\n");
    CHECK(rules("p := 1 if { a }\n{ b }") == "(rule (ref p) := 1 {a} {b})\n");
    CHECK(rules("f(x) := 1 if x > 0 { x < 0 }") == "(rule (ref f) (args x) := 1 {(gt x 0)} {(lt x 0)})\n");
    // A parenthesised head is OPA's query statement, which its parseModule makes a rule of.
    CHECK(rules("(f(x)) := 1") == "(rule (ref f) (args x) := 1)\n");
    CHECK(rules("p { false } { true }", v0()) == "(rule (ref p) {false} {true})\n");
    CHECK(rules("p if { a } else { b } { c }").rfind("ERROR", 0) == 0);  // chained bodies come before else
    CHECK(rules("p { a } { b }").rfind("ERROR", 0) == 0);                // v1 still wants `if`
}

// What OPA makes of a head alone (its ParseRuleFromExpr and CheckRegoV1).
TEST_CASE("a rule head without value or body") {
    auto first_error = [](const std::string& text, ParseOptions o = {}) {
        auto r = parse_module("m.rego", "package p\n" + text + "\n", o);
        if (r.ok()) return std::string("ok");
        const auto& d = r.diagnostics.items()[0];
        return std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message;
    };
    CHECK(first_error("p") == "2:1 var cannot be used for rule name");
    CHECK(first_error("p", v0()) == "2:1 var cannot be used for rule name");
    CHECK(first_error("p.a") == "2:1 `contains` keyword is required for partial set rules");
    CHECK(first_error("p[\"a\"]") == "2:1 `contains` keyword is required for partial set rules");
    CHECK(first_error("p.a.b") == "2:1 rule must have value assignment and/or body declaration");
    CHECK(rules("p.a", v0()) == "(rule (ref p) key \"a\")\n");
    CHECK(rules("p.a.b", v0()) == "(rule (ref p \"a\" \"b\"))\n");
    CHECK(rules("f(x)") == "(rule (ref f) (args x))\n");  // a function that is true
}

// OPA's parseRules back-compat: without `if`, a two-part head is a partial set however written.
TEST_CASE("v0 two-part heads are partial sets") {
    auto r = parse_module("m.rego", "package p\nx.a { true }\n", v0());
    REQUIRE(r.ok());
    const auto& rule = r.module->rules.at(0);
    CHECK(sexpr(rule) == "(rule (ref x) key \"a\" {true})");
    CHECK(rule.head.v0_bracket);
    CHECK(rules("x[\"a\"] { true }", v0()) == "(rule (ref x) key \"a\" {true})\n");
    CHECK(rules("x.a.b { true }", v0()) == "(rule (ref x \"a\" \"b\") {true})\n");
    CHECK(rules("import future.keywords.if\nx.a if { true }", v0()) == "(rule (ref x \"a\") {true})\n");
}

TEST_CASE("else chains") {
    CHECK(rules("x := 1 if { a } else := 2 if { b } else := 3") ==
          "(rule (ref x) := 1 {a} else (rule <null> := 2 {b} else (rule <null> := 3)))\n");
    CHECK(rules("f(x) := 1 if x > 0\nelse := 0") ==
          "(rule (ref f) (args x) := 1 {(gt x 0)} else (rule <null> := 0))\n");
}

TEST_CASE("v0 rule forms") {
    CHECK(rules("allow { input.ok }", v0()) == "(rule (ref allow) {(ref input \"ok\")})\n");
    CHECK(rules("deny[msg] {\n  msg := \"x\"\n}", v0()) == "(rule (ref deny) key msg {(assign msg \"x\")})\n");
    CHECK(rules("p[\"k\"] { true }", v0()) == "(rule (ref p) key \"k\" {true})\n");
    CHECK(rules("o[k] = v { k := 1; v := 2 }", v0()) == "(rule (ref o k) = v {(assign k 1); (assign v 2)})\n");
    CHECK(rules("p { a } { b }", v0()) == "(rule (ref p) {a} {b})\n");
    CHECK(rules("f(x) = y { y := x }", v0()) == "(rule (ref f) (args x) = y {(assign y x)})\n");
    CHECK(rules("p = 1 { false } else = 2 { true }", v0()) ==
          "(rule (ref p) = 1 {false} else (rule <null> = 2 {true}))\n");
    // In v0 the future keywords are identifiers unless imported.
    CHECK(rules("if := 1\ncontains := 2", v0()) == "(rule (ref if) := 1)\n(rule (ref contains) := 2)\n");
    CHECK(rules("import future.keywords.in\np { 1 in [1] }", v0()) ==
          "(rule (ref p) {(internal.member_2 1 (array 1))})\n");
    CHECK(rules("import future.keywords\np contains x if { x := 1 }", v0()) ==
          "(rule (ref p) contains x {(assign x 1)})\n");
}

TEST_CASE("import rego.v1 makes a module v1 in v0 mode") {
    auto r = parse_module("m.rego", "package p\nimport rego.v1\ndeny contains 1 if true\n", v0());
    REQUIRE(r.ok());
    CHECK(r.module->rego_v1);
    auto bad = parse_module("m.rego", "package p\nimport rego.v1\ndeny[1] { true }\n", v0());
    CHECK_FALSE(bad.ok());
}

TEST_CASE("a v0 module in v1 mode names the fix") {
    auto r = parse_module("policy.rego", "package k\n\ndeny[msg] {\n  msg := \"x\"\n}\n");
    REQUIRE_FALSE(r.ok());
    // OPA's two errors for a v0 partial set, and gavel's hint naming the fix beside the first.
    REQUIRE(r.diagnostics.size() == 2);
    const auto& d = r.diagnostics.items()[0];
    CHECK(d.code == "rego_parse_error");
    CHECK(d.line == 3);
    CHECK(d.col == 1);
    CHECK(d.message == "`if` keyword is required before rule body");
    CHECK(d.hint.find("--v0-compatible") != std::string::npos);
    CHECK(d.headline().find("--v0-compatible") != std::string::npos);
    CHECK(r.diagnostics.items()[1].message == "`contains` keyword is required for partial set rules");
    auto plain = parse_module("policy.rego", "package k\n\nallow {\n  true\n}\n");
    REQUIRE_FALSE(plain.ok());
    REQUIRE(plain.diagnostics.size() == 1);
    CHECK(plain.diagnostics.items()[0].message == "`if` keyword is required before rule body");
}

TEST_CASE("METADATA annotations are parsed as YAML and attached") {
    auto r = parse_module("m.rego",
                          "# METADATA\n# title: The package\npackage p\n\n"
                          "# METADATA\n# title: Allow\n# description: lets things in\nallow := true\n");
    REQUIRE(r.ok());
    REQUIRE(r.module->annotations.size() == 2);
    CHECK(r.module->annotations[0].on_package);
    CHECK(r.module->annotations[0].scope == "package");
    CHECK(r.module->annotations[1].rule_index == 0);
    CHECK(r.module->annotations[1].yaml == "title: Allow\ndescription: lets things in\n");
    auto bad = parse_module("m.rego", "package p\n# METADATA\n# title: [unclosed\nallow := true\n");
    REQUIRE_FALSE(bad.ok());
    // OPA's text and place: go-yaml v3's "line 1" names the block's line after METADATA (0-based).
    CHECK(bad.diagnostics.items()[0].message == "yaml: line 1: did not find expected ',' or ']'");
    CHECK(bad.diagnostics.items()[0].line == 3);
    auto tab = parse_module("m.rego", "package p\n\n# METADATA\n# title: a\n# \tdescription: x\np := 1\n");
    REQUIRE_FALSE(tab.ok());
    CHECK(tab.diagnostics.items()[0].message == "yaml: line 2: found a tab character that violates indentation");
    CHECK(tab.diagnostics.items()[0].line == 5);
    auto seq = parse_module("m.rego", "package p\n\n# METADATA\n# - a\np := 1\n");
    REQUIRE_FALSE(seq.ok());
    CHECK(seq.diagnostics.items()[0].message ==
          "yaml: unmarshal errors:\n  line 1: cannot unmarshal !!seq into ast.rawAnnotation");
    CHECK(seq.diagnostics.items()[0].line == 4);
    auto hint = parse_module("m.rego", "package p\n\n# METADATA\n# title:a\n# x: [\np := 1\n");
    REQUIRE_FALSE(hint.ok());
    CHECK(
        hint.diagnostics.items()[0].message ==
        "yaml: line 2: mapping values are not allowed in this context\n  Hint: on line 4, symbol(s) ['a'] immediately "
        "following a key/value separator ':' is not a legal yaml space character");
}

TEST_CASE("a METADATA block is found and ended as OPA's parser finds it") {
    auto errors = [](const std::string& text) {
        std::vector<std::string> out;
        for (const auto& d : parse_module("m.rego", text).diagnostics)
            out.push_back(std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.message);
        return out;
    };
    using List = std::vector<std::string>;
    const std::string empty = "expected METADATA block, found whitespace";
    // A block with nothing in it, wherever its first comment stands.
    CHECK(errors("# METADATA\npackage p\n") == List{"1:1 " + empty});
    CHECK(errors("package p\n# METADATA\n#\np := 1\n") == List{"2:1 " + empty});
    CHECK(errors("package p\np := 1 # METADATA\nq := 2\n") == List{"2:8 " + empty});
    CHECK(errors("package p\n  # METADATA\np := 1\n") == List{"2:3 " + empty});
    // Only comments that begin their line continue it.
    CHECK(errors("package p\n# METADATA\n  # title: x\np := 1\n") == List{"2:1 " + empty});
    // A comment beginning with the word opens a block.
    auto prefixed = parse_module("m.rego", "package p\n# METADATAfoo\n# title: x\np := 1\n");
    REQUIRE(prefixed.ok());
    REQUIRE(prefixed.module->annotations.size() == 1);
    CHECK(prefixed.module->annotations[0].yaml == "title: x\n");
    // The block's error is the parser's: OPA's module checks (a missing `if`) never run.
    CHECK(errors("# METADATA\npackage p\np := 1 { true }\n") == List{"1:1 " + empty});
}

TEST_CASE("comments are kept with their locations") {
    auto r = parse_module("m.rego", "package p # the package\n# about x\nx := \"#not a comment\" # trailing\n");
    REQUIRE(r.ok());
    REQUIRE(r.module->comments.size() == 3);
    CHECK(r.module->comments[0].text == " the package");
    CHECK(r.module->comments[1].loc.line == 2);
    CHECK(r.module->comments[2].text == " trailing");
}

TEST_CASE("every node carries file:line:col") {
    auto r = parse_module("loc.rego", "package p\n\nallow if {\n\tx := input.a + 1\n}\n");
    REQUIRE(r.ok());
    const auto& rule = r.module->rules.at(0);
    CHECK(rule.loc.line == 3);
    CHECK(rule.loc.col == 1);
    CHECK(rule.loc.file() == "loc.rego");
    const auto& expr = rule.body.at(0);
    CHECK(expr.loc.line == 4);
    CHECK(expr.loc.col == 2);
    const auto& plus = expr.term->elems.at(2);
    CHECK(plus->loc.col == 7);
    CHECK(plus->loc.text() == "input.a + 1");
    CHECK(plus->elems.at(1)->loc.text() == "input.a");
}

TEST_CASE("expressions and the calls built from terms span the parentheses written around them, as OPA's do") {
    using gavel::lang::parse_query;
    CHECK(parse_query("x := (1 + 2)").body.at(0).loc.text() == "x := (1 + 2)");
    CHECK(parse_query("x := 3 * ( (1 + 2) )").body.at(0).loc.text() == "x := 3 * ( (1 + 2) )");
    CHECK(parse_query("(1) == 1").body.at(0).loc.text() == "(1) == 1");
    CHECK(parse_query("((x))").body.at(0).loc.text() == "((x))");
    CHECK(parse_query("not (x)").body.at(0).loc.text() == "not (x)");
    CHECK(parse_query("x := 1 with input as (2)").body.at(0).loc.text() == "x := 1 with input as (2)");
    CHECK(parse_query("some x in (xs)").body.at(0).loc.text() == "some x in (xs)");
    // The term itself keeps its own location: `1 + 2` inside the parentheses.
    auto q = parse_query("x := (1 + 2)");
    CHECK(q.body.at(0).term->elems.at(2)->loc.text() == "1 + 2");
}

TEST_CASE("`some x in xs in ys` chains its `in`s on the left, as OPA's parseSome reads one infix term") {
    using gavel::lang::parse_query;
    auto q = parse_query("some x in xs in ys");
    REQUIRE(q.ok());
    CHECK(sexpr(q.body.at(0)) == "(some (internal.member_2 (internal.member_2 x xs) ys))");
    CHECK(q.body.at(0).loc.text() == "some x in xs in ys");
    // A literal after a line break continues the collection: `[1] - 1.0 in [1]`.
    auto r = parse_query("some x in [1]\n-1.0 in [1]");
    REQUIRE(r.ok());
    REQUIRE(r.body.size() == 1);
    CHECK(sexpr(r.body.at(0)) == "(some (internal.member_2 (internal.member_2 x (minus (array 1) 1.0)) (array 1)))");
}

TEST_CASE("columns count characters, as OPA's scanner does") {
    using gavel::lang::parse_query;
    auto q = parse_query("x8 := \"\xC3\xBC\"; x9 := 2");  // "ü" is two bytes, one column
    REQUIRE(q.ok());
    CHECK(q.body.at(1).loc.col == 12);
    auto r = parse_query("[\"\xE6\x97\xA5\xE6\x9C\xAC\"]\ny := 1");  // a later line starts again at 1
    REQUIRE(r.ok());
    CHECK(r.body.at(1).loc.col == 1);
}

TEST_CASE("key-value membership wherever OPA reads a term with parseTermInfixCall") {
    // A rule's value and key, an else value, a `with` value and a ref's brackets; not list items.
    CHECK(rules("p := 1, 2 in o\n").find("internal.member_3 1 2 o") != std::string::npos);
    CHECK(rules("p contains 1, 2 in o\n").find("internal.member_3 1 2 o") != std::string::npos);
    CHECK(rules("p := 1 if { false } else := 1, 2 in o\n").find("internal.member_3 1 2 o") != std::string::npos);
    CHECK(rules("p if { x with input as 1, 2 in o }\n").find("internal.member_3 1 2 o") != std::string::npos);
    CHECK(rules("p := x[1, 2 in o]\n").find("internal.member_3 1 2 o") != std::string::npos);
    CHECK(rules("p := [1, 2 in o]\n").find("internal.member_3") == std::string::npos);
    CHECK(rules("p := 1, 2\n").rfind("ERROR", 0) == 0);
    CHECK(rules("p := 1, 2 in o\n", v0()).rfind("ERROR", 0) == 0);  // `in` is no keyword there
}
