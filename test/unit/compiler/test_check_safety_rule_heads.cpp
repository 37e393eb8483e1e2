// Stage check_safety_rule_heads: head variables are bound by the body or arguments.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;

TEST_CASE("check_safety_rule_heads: a head variable nothing binds") {
    // At the rule's location, as OPA reports it.
    CHECK(errors_of("package p\np[x] if { true }\n") == "2:1 rego_unsafe_var_error: var x is unsafe\n");
    CHECK(errors_of("package p\nq contains y if { x := 1 }\n").find("var y is unsafe") != std::string::npos);
    CHECK(errors_of("package p\nf(x) := y if { x > 0 }\n").find("var y is unsafe") != std::string::npos);
}

TEST_CASE("check_safety_rule_heads: arguments, body bindings, input and data are safe") {
    CHECK(errors_of("package p\nf(x) := x\np[x] if { x := 1 }\n").empty());
    CHECK(errors_of("package p\nx := input if { true }\ny := data.q if { true }\n").empty());
}
