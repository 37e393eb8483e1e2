// lang::normalize_module: a parsed module in the shape OPA's parser builds,
// for the compiler and the AST printers alike. Expected names and places are
// those `opa parse --format json --json-include locations` shows (OPA 1.7.1).

#include <doctest/doctest.h>

#include <string>

#include "lang/ast_json.hpp"
#include "lang/copy.hpp"
#include "lang/normalize_module.hpp"
#include "lang/parse.hpp"

using namespace gavel::lang;

namespace {

Module normalized(const std::string& text, bool v0 = false) {
    ParseOptions options;
    options.v0_compatible = v0;
    auto r = parse_module("m.rego", text, options);
    REQUIRE(r.ok());
    Module m = std::move(*r.module);
    normalize_module(m);
    return m;
}

const std::string& var_name(const TermPtr& t) {
    REQUIRE(t);
    REQUIRE(t->kind == TermKind::Var);
    return t->text;
}

}  // namespace

TEST_CASE("normalize_module: wildcards are named in the order OPA's parser reads them") {
    // An else clause's `_` argument is renamed when its `else` is read, a chained
    // body's after the body.
    Module m = normalized(
        "package p\n"
        "f(_, y) := 1 if { y } else := 2 if { true } else if { _ = 1 }\n"
        "g(_) if { _ } { true }\n");
    REQUIRE(m.rules.size() == 3);
    const Rule& f = m.rules[0];
    CHECK(var_name(f.head.args[0]) == "$0");
    CHECK(var_name(f.head.args[1]) == "y");
    REQUIRE(f.else_rule);
    CHECK(var_name(f.else_rule->head.args[0]) == "$1");
    REQUIRE(f.else_rule->else_rule);
    const Rule& last = *f.else_rule->else_rule;
    CHECK(var_name(last.head.args[0]) == "$2");
    CHECK(var_name(last.body.at(0).term->elems.at(1)) == "$3");
    CHECK(var_name(m.rules[1].head.args[0]) == "$4");
    CHECK(var_name(m.rules[1].body.at(0).term) == "$5");
    CHECK(var_name(m.rules[2].head.args[0]) == "$6");
}

TEST_CASE("normalize_module: chained bodies are rules of their own at their braces") {
    Module m = normalized("package p\ng(x) := [x] if { x } { true }\n");
    REQUIRE(m.rules.size() == 2);
    const Rule& first = m.rules[0];
    const Rule& chained = m.rules[1];
    CHECK(first.loc.text() == "g(x) := [x] if { x }");
    CHECK(chained.loc.text() == "{ true }");
    CHECK(chained.has_if);
    // OPA's setLocRecursive on the copied head: arguments and value move to the
    // braces, the ref stays where it was written.
    CHECK(chained.head.loc.text() == "{ true }");
    CHECK(chained.head.args.at(0)->loc.text() == "{ true }");
    CHECK(chained.head.value->elems.at(0)->loc.text() == "{ true }");
    CHECK(chained.head.ref->elems.at(0)->loc.text() == "g");
    // A copy: the compiler rewrites each rule's head on its own.
    CHECK(chained.head.args.at(0) != first.head.args.at(0));
}

TEST_CASE("normalize_module: generated values and bodies are marked as OPA marks them") {
    Module m = normalized("package p\np if { input.x }\nq[x] if { x := 1 }\nr := 1\ns contains 1\n");
    REQUIRE(m.rules.size() == 4);
    const RuleHead& p = m.rules[0].head;
    CHECK(p.generated_value);
    CHECK(p.value->boolean);
    CHECK_FALSE(p.value->loc.source);  // OPA's parser adds it before the head has a location
    CHECK_FALSE(m.rules[0].generated_body);
    CHECK(m.rules[1].head.generated_value);
    CHECK(m.rules[1].head.value->loc.text() == m.rules[1].head.loc.text());  // `p[x] if`: at the head
    CHECK(m.rules[2].generated_body);
    CHECK(m.rules[2].body.at(0).loc.text() == "r := 1");
    CHECK_FALSE(m.rules[2].head.generated_value);
    CHECK_FALSE(m.rules[3].head.value);  // multi-value: a key, no value
}

TEST_CASE("normalize_module: an else clause has its rule's head with its own value") {
    Module m = normalized("package p\nf(x) := 1 if { x } else := 2 if { true } else if { true }\n");
    const Rule& r = m.rules.at(0);
    REQUIRE(r.else_rule);
    const RuleHead& e1 = r.else_rule->head;
    CHECK(e1.ref->ref_dotted() == "f");
    CHECK(var_name(e1.args.at(0)) == "x");
    CHECK(e1.value->text == "2");
    CHECK(e1.loc.text().starts_with("else"));
    REQUIRE(r.else_rule->else_rule);
    const RuleHead& e2 = r.else_rule->else_rule->head;
    CHECK(e2.generated_value);
    CHECK(e2.value->boolean);
    CHECK(e2.assign == AssignOp::Assign);  // OPA's copy of the head keeps `:=`
}

TEST_CASE("normalize_module: annotations follow their rules past chained bodies") {
    Module m = normalized(
        "package p\n"
        "p if { false } { true }\n"
        "# METADATA\n"
        "# title: q\n"
        "q := 1\n");
    REQUIRE(m.rules.size() == 3);
    REQUIRE(m.annotations.size() == 1);
    CHECK(m.annotations[0].rule_index == 2);
}

TEST_CASE("normalize_module: a module normalised once is left as it is") {
    const std::string text =
        "package p\n"
        "f(_) := 1 if { input.a[_] } else := 2\n"
        "g(_) if { true } { false }\n"
        "q[x] if { x := 1 }\n"
        "default d := 1\n";
    auto parsed = parse_module("m.rego", text);
    REQUIRE(parsed.ok());
    Module once = copy_module(*parsed.module);
    normalize_module(once);
    Module twice = copy_module(once);
    normalize_module(twice);
    AstJsonOptions options;
    options.locations = true;
    CHECK(module_to_json(twice, options) == module_to_json(once, options));
    CHECK(module_to_json(once, options) == module_to_json(*parsed.module, options));
}

TEST_CASE("name_wildcards: each `_` of a query is a variable of its own") {
    auto parsed = parse_module("m.rego", "package p\nq if { input[_] == input[_] }\n");
    REQUIRE(parsed.ok());
    Body body = copy_body(parsed.module->rules.at(0).body);
    name_wildcards(body);
    CHECK(var_name(body.at(0).term->elems.at(1)->elems.at(1)) == "$0");
    CHECK(var_name(body.at(0).term->elems.at(2)->elems.at(1)) == "$1");
}
