// Inputs built to exhaust the stack: long operator chains, long else chains,
// many `not`s, deep brackets. Each parses or is refused with an error that
// names the limit, file:line:col; none may crash.

#include <doctest/doctest.h>

#include <string>

#include "lang/ast_json.hpp"
#include "lang/parse.hpp"

using gavel::lang::parse_module;
using gavel::lang::parse_query;
using gavel::lang::parse_term;
using gavel::lang::ParseOptions;

namespace {

// `first op first op ...`, `count` operands.
std::string chain(const std::string& operand, const std::string& op, std::size_t count) {
    std::string out;
    out.reserve(count * (operand.size() + op.size()));
    for (std::size_t i = 0; i < count; ++i) {
        if (i > 0) out += op;
        out += operand;
    }
    return out;
}

// `p := 0 if { false }` and `clauses` else branches after it.
std::string else_chain(std::size_t clauses) {
    std::string out = "package p\np := 0 if { false }\n";
    for (std::size_t i = 1; i < clauses; ++i) out += "else := " + std::to_string(i) + " if { false }\n";
    out += "else := " + std::to_string(clauses) + "\n";
    return out;
}

const std::string depth_message = "max parsing recursion depth exceeded";

}  // namespace

TEST_CASE("long infix chains parse as OPA's do; past the depth limit they are refused") {
    // OPA accepts thousands of chained operands in rules and queries alike.
    CHECK(parse_module("m.rego", "package p\nx := " + chain("1", "+", 3000) + "\n").ok());
    CHECK(parse_module("u.rego", "package p\nx := " + chain("{1}", "|", 3000) + "\n").ok());
    CHECK(parse_query("x := " + chain("a", " == ", 3000)).ok());
    CHECK(parse_term(chain("1", "*", 3000)).ok());
    CHECK(parse_query(chain("x", " in ", 3000)).ok());
    CHECK(parse_query("x := " + chain("y", " | ", 99990)).ok());

    auto plus = parse_module("plus.rego", "package p\nx := " + chain("1", "+", 100002) + "\n");
    REQUIRE_FALSE(plus.ok());
    REQUIRE(plus.diagnostics.size() == 1);
    const auto& d = plus.diagnostics.items()[0];
    CHECK(d.file == "plus.rego");
    CHECK(d.code == "rego_parse_error");
    CHECK(d.message == depth_message);
    CHECK(d.hint == "expression nesting exceeds gavel's limit of 100000 levels");
    CHECK(d.line == 2);
    CHECK(parse_query("x := " + chain("a", " == ", 100002)).diagnostics.items().at(0).message == depth_message);

    // Refused quickly and released without recursion, however long.
    CHECK_FALSE(parse_term(chain("1", "-", 200000)).ok());
}

TEST_CASE("the depth limit is an option") {
    ParseOptions tight;
    tight.max_depth = 10;
    auto r = parse_query("x := 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10", tight);
    REQUIRE_FALSE(r.ok());
    CHECK(r.diagnostics.items()[0].message == depth_message);
    CHECK(r.diagnostics.items()[0].hint == "expression nesting exceeds gavel's limit of 10 levels");
    CHECK(parse_query("x := [[[[[[[[1]]]]]]]]", tight).ok());
    CHECK_FALSE(parse_query("x := [[[[[[[[[[1]]]]]]]]]]", tight).ok());
    // A comprehension's body sits one level below it.
    CHECK(parse_query("x := [y | y := [z | z := [w | w := [1]]]]", tight).ok());
    CHECK_FALSE(parse_query("x := [y | y := [z | z := [w | w := [v | v := [1]]]]]", tight).ok());
}

TEST_CASE("a long ref is flat, not deep") {
    auto r = parse_module("m.rego", "package p\nx := input" + chain(".a", "", 100000) + "\n");
    CHECK(r.ok());
}

TEST_CASE("ten thousand nots are one error, not a recursion") {
    std::string nots;
    for (int i = 0; i < 10000; ++i) nots += "not ";
    auto r = parse_module("n.rego", "package p\np if { " + nots + "x }\n");
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.diagnostics.size() == 1);
    CHECK(r.diagnostics.items()[0].message == "unexpected not keyword");
    CHECK(r.diagnostics.items()[0].line == 2);
    CHECK(r.diagnostics.items()[0].col == 12);
    CHECK_FALSE(parse_query(nots + "x").ok());
}

TEST_CASE("five thousand else branches parse, and print") {
    auto r = parse_module("e.rego", else_chain(5000));
    REQUIRE(r.ok());
    REQUIRE(r.module->rules.size() == 1);
    std::size_t clauses = 0;
    const gavel::lang::Rule* last = &r.module->rules[0];
    for (; last->else_rule; last = last->else_rule.get()) ++clauses;
    CHECK(clauses == 5000);
    CHECK(last->head.value->text == "5000");
    CHECK(last->loc.line == 5002);
    std::string json = gavel::lang::module_to_json(*r.module, false);
    CHECK(json.size() > 5000 * 50);
    CHECK(json.back() == '}');
}

TEST_CASE("an else chain longer than the limit is refused") {
    auto r = parse_module("e.rego", else_chain(20000));
    REQUIRE_FALSE(r.ok());
    REQUIRE(r.diagnostics.size() == 1);
    const auto& d = r.diagnostics.items()[0];
    CHECK(d.message == "else chain exceeds the limit of 10000 branches");
    CHECK(d.line == 10003);  // the 10,001st else (the rule starts on line 2)
    CHECK(d.col == 1);
    ParseOptions tight;
    tight.max_else_branches = 3;
    CHECK(parse_module("e.rego", else_chain(3), tight).ok());
    CHECK_FALSE(parse_module("e.rego", else_chain(4), tight).ok());
}

TEST_CASE("brackets of every kind at the nesting limit parse, past it are refused") {
    for (const char* pair : {"[]", "{}", "()"}) {
        CAPTURE(pair);
        std::string within = "x := " + std::string(50000, pair[0]) + "1" + std::string(50000, pair[1]);
        CHECK(parse_query(within).ok());
        std::string past = "x := " + std::string(50001, pair[0]) + "1" + std::string(50001, pair[1]);
        auto r = parse_query(past);
        REQUIRE_FALSE(r.ok());
        CHECK(r.diagnostics.items()[0].message == depth_message);
        CHECK(r.diagnostics.items()[0].hint ==
              "brackets, braces and parentheses nest deeper than gavel's limit of 50000 levels");
    }
    // Comprehensions, calls and template strings inside one another.
    std::string mixed = "x := ";
    for (int i = 0; i < 60; ++i) mixed += "[y | y := f({$\"{";
    mixed += "1";
    for (int i = 0; i < 60; ++i) mixed += "}\"})]";
    CHECK(parse_query(mixed).diagnostics.size() <= 1);
}

TEST_CASE("deep trees built by hand are released without recursion") {
    using namespace gavel::lang;
    TermPtr t = make_var("x", Location{});
    for (int i = 0; i < 1000000; ++i) t = make_call("plus", {t, make_var("y", Location{})}, Location{}, true);
    t.reset();
    Rule rule;
    Rule* tail = &rule;
    for (int i = 0; i < 1000000; ++i) {
        tail->else_rule = std::make_shared<Rule>();
        tail = tail->else_rule.get();
    }
    CHECK(rule.else_rule);
}

TEST_CASE("a rule path deeper than the depth limit is refused: the data tree it builds is walked recursively") {
    auto dotted = [](const std::string& first, std::size_t parts) {
        std::string out = first;
        for (std::size_t i = 1; i < parts; ++i) out += ".b" + std::to_string(i);
        return out;
    };
    ParseOptions tight;
    tight.max_depth = 1000;
    // p and 999 head parts: 1,000 parts, the limit itself.
    CHECK(parse_module("m.rego", "package p\n" + dotted("a", 999) + " := 1\n", tight).ok());
    CHECK_FALSE(parse_module("m.rego", "package p\n" + dotted("a", 1000) + " := 1\n", tight).ok());
    auto head = parse_module("m.rego", "package p\n" + dotted("a", 20000) + " := 1\n", tight);
    REQUIRE_FALSE(head.ok());
    REQUIRE(head.diagnostics.size() == 1);
    CHECK(head.diagnostics.items()[0].line == 2);
    CHECK(head.diagnostics.items()[0].message ==
          "rule path (package and head) has 20001 parts, more than the limit of 1000");

    // A long package is reported once, at the package.
    auto pkg = parse_module("m.rego", "package " + dotted("p", 5000) + "\nx := 1\ny := 2\n", tight);
    REQUIRE_FALSE(pkg.ok());
    REQUIRE(pkg.diagnostics.size() == 1);
    CHECK(pkg.diagnostics.items()[0].line == 1);
    CHECK(pkg.diagnostics.items()[0].message == "package path has 5000 parts, more than the limit of 1000");

    // A long ref in a body builds no tree: it is not limited.
    CHECK(parse_module("m.rego", "package p\nx := " + dotted("input", 20000) + "\n", tight).ok());
}
