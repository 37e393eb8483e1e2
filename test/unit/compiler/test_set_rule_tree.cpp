// Stage set_rule_tree: rules indexed by path; packages by module.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

TEST_CASE("set_rule_tree: every clause sits at its full path, function arities known through it") {
    auto a = gavel::lang::parse_module("a.rego", "package p\nq.r := 1\nf(x) := x\n");
    auto b = gavel::lang::parse_module("b.rego", "package p.s\nt contains 1\nt contains 2\n");
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    auto compiled = gavel::compiler::compile_modules({&*a.module, &*b.module}, {});
    REQUIRE(compiled.ok());
    REQUIRE(compiled.rule_tree);
    const auto* data = compiled.rule_tree->child("4data");
    REQUIRE(data);
    const auto* p = data->child("3p");
    REQUIRE(p);
    REQUIRE(p->child("3q"));
    CHECK(p->child("3q")->child("3r")->rules.size() == 1);
    REQUIRE(p->child("3s"));
    CHECK(p->child("3s")->child("3t")->rules.size() == 2);
    auto f = gavel::lang::parse_term("data.p.f");
    REQUIRE(f.term);
    CHECK(compiled.arity(*f.term) == 1);
    CHECK(compiled.module_tree);
}
