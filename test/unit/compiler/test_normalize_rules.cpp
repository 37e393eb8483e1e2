// Stage normalize_rules: the parser's shapes as OPA's parser builds them.

#include <doctest/doctest.h>

#include <set>

#include "lang/ast_json.hpp"
#include "lang/walk.hpp"
#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::rules_of;

TEST_CASE("normalize_rules: chained bodies are rules of their own with the same head (v1 and v0)") {
    CHECK(rules_of("package p\np if { false } { true }\n") == "p = true if { false }\np = true if { true }\n");
    CHECK(rules_of("package p\np { false } { true }\n", true) == "p = true if { false }\np = true if { true }\n");
    CHECK(rules_of("package p\nq[x] { x := 1 } { x := 2 }\n", true) ==
          "q contains __local0__ if { __local0__ = 1 }\nq contains __local1__ if { __local1__ = 2 }\n");
}

TEST_CASE("normalize_rules: a rule without value is true, without body has body true") {
    CHECK(rules_of("package p\np if input.x\n") == "p = true if { input.x }\n");
    CHECK(rules_of("package p\nx := 3\n") == "x = 3 if { true }\n");
    CHECK(rules_of("package p\ndefault d := 1\n") == "default d = 1 if { true }\n");
}

TEST_CASE("normalize_rules: else clauses carry their rule's head with their own value") {
    CHECK(rules_of("package p\np := 1 if { false } else := 2 if { true } else := 3\n") ==
          "p = 1 if { false }\np = 2 if { true }\np = 3 if { true }\n");
    CHECK(rules_of("package p\nf(x) := 1 if { x > 0 } else := 2\n") ==
          "f(__local0__) = 1 if { gt(__local0__, 0) }\nf(__local0__) = 2 if { true }\n");
}

TEST_CASE("normalize_rules: each _ is a variable of its own") {
    auto parsed = gavel::lang::parse_module("m.rego", "package p\nq if { input[_] == input[_] }\n");
    REQUIRE(parsed.ok());
    auto compiled = gavel::compiler::compile_modules({&*parsed.module}, {});
    REQUIRE(compiled.ok());
    std::set<std::string> wildcards;
    gavel::lang::walk_terms_in_body(compiled.modules.at(0)->rules.at(0).body, [&](gavel::lang::Term& t) {
        if (t.kind == gavel::lang::TermKind::Var && t.text.rfind('$', 0) == 0) wildcards.insert(t.text);
        return false;
    });
    // Two wildcards never unify with each other: both iterate.
    CHECK(wildcards.size() == 2);
    CHECK(wildcards.count("_") == 0);
}

TEST_CASE("normalize_rules: a compiled else clause prints with its own head, as OPA's REST API shows it") {
    // OPA renames a wildcard argument in each clause apart; printing the compiled
    // module must not give the else clause its rule's head again.
    auto parsed = gavel::lang::parse_module("m.rego", "package p\ng(_) := 1 if { true } else := 2\n");
    REQUIRE(parsed.ok());
    auto compiled = gavel::compiler::compile_modules({&*parsed.module}, {});
    REQUIRE(compiled.ok());
    const gavel::lang::Rule& g = compiled.modules.at(0)->rules.at(0);
    REQUIRE(g.else_rule);
    const std::string first = g.head.args.at(0)->text, other = g.else_rule->head.args.at(0)->text;
    REQUIRE(first != other);
    gavel::lang::AstJsonOptions options;
    options.generated = true;
    std::string json = gavel::lang::module_to_json(*compiled.modules.at(0), options);
    auto args = [](const std::string& name) { return R"("args":[{"type":"var","value":")" + name + R"("}])"; };
    CHECK(json.find(args(first)) != std::string::npos);
    CHECK(json.find(args(other)) != std::string::npos);
}
