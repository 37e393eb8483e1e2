// Stage check_safety_rule_bodies: bodies reordered so every variable is bound before use; unsafe ones reported.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;
using gavel::test::rules_of;

TEST_CASE("check_safety_rule_bodies: an expression runs after what binds its variables") {
    CHECK(rules_of("package p\np if { x > 1; x = 2 }\n") == "p = true if { x = 2; gt(x, 1) }\n");
}

TEST_CASE("check_safety_rule_bodies: unsafe variables, at their expression, also after a comprehension (it crashed)") {
    CHECK(errors_of("package a\nn if { d := [1 | true]; m > 1 }\n") == "2:25 rego_unsafe_var_error: var m is unsafe\n");
    CHECK(errors_of("package a\nn if { not x }\n") == "2:8 rego_unsafe_var_error: var x is unsafe\n");
}

TEST_CASE("check_safety_rule_bodies: unification that can never bind is unsafe, as OPA reports it") {
    CHECK(errors_of("package p\np if { [x, y] = [1, 2, 3] }\n") ==
          "2:8 rego_unsafe_var_error: var x is unsafe\n2:8 rego_unsafe_var_error: var y is unsafe\n");
    CHECK(errors_of("package p\np if { [x] = {\"k\": 1} }\n") == "2:8 rego_unsafe_var_error: var x is unsafe\n");
}

TEST_CASE("check_safety_rule_bodies: comprehension bodies are checked with the outer bindings") {
    CHECK(errors_of("package p\np if { y := 1; s := [x | x := y + 1]; s }\n").empty());
    CHECK(errors_of("package p\np if { s := [x | x := z + 1]; s }\n").find("var z is unsafe") != std::string::npos);
}

TEST_CASE("check_safety_rule_bodies: a call's outputs stay known to the next equality, as OPA's shared output set") {
    // A set operand does not keep a call from binding its output (SkipSets): `z` stays in OPA's
    // shared `output` set although `w` keeps the call unsafe, and `y = z` then binds both.
    CHECK(errors_of("package p\np if { count({w}, z); y = z }\n") == "2:8 rego_unsafe_var_error: var w is unsafe\n");
    CHECK(errors_of("package p\np if { y := count({1, w}) }\n") == "2:13 rego_unsafe_var_error: var w is unsafe\n");
    // An array operand does block it: nothing is left for `y = z`.
    CHECK(errors_of("package p\np if { count([w], z); y = z }\n") ==
          "2:8 rego_unsafe_var_error: var w is unsafe\n2:8 rego_unsafe_var_error: var z is unsafe\n"
          "2:23 rego_unsafe_var_error: var y is unsafe\n");
}
