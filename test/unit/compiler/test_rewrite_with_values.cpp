// Stage rewrite_with_values: with targets checked; values needing evaluation bound first.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;
using gavel::test::rules_of;

TEST_CASE("rewrite_with_values: a value with an unbound variable is evaluated first, so it iterates") {
    CHECK(rules_of("package p\nxs := [1, 2]\nr := [v | v := input.x with input.x as xs[_]]\n") ==
          "xs = [1, 2] if { true }\n"
          "r = __local1__ if { __local1__ = [__local0__ | __local2__ = data.p.xs[_]; "
          "__local0__ = input.x with input.x as __local2__] }\n");
}

TEST_CASE("rewrite_with_values: targets OPA refuses") {
    CHECK(errors_of("package p\np if { x := input with foo as 1; x }\n") ==
          "2:24 rego_type_error: with keyword target must reference existing input, data, or a function\n");
    CHECK(errors_of("package p\nq.r := 1\nq.s := 2\np if { data.p.q with data.p.q.r as 3 }\n").empty());
    CHECK(errors_of("package p\np if { x := 1 with count as 2; x }\n").empty());
    CHECK(errors_of("package p\np if { x := 1 with internal.print as 2; x }\n") ==
          "2:20 rego_compile_error: with keyword replacing built-in function: replacement of internal function "
          "\"internal.print\" invalid\n");
}

TEST_CASE("rewrite_with_values: expressions split off one expression bind its with value once, as OPA's share it") {
    // upper(...) is split off the call with the modifier (rewrite_expr_terms); OPA's split-off
    // expression shares the modifier, so the comprehension is bound once and type checked once.
    CHECK(
        rules_of("package p\nr if { startswith(upper(\"a\"), \"A\") with input as [v | v := 1] }\n") ==
        "r = true if { __local2__ = [__local0__ | __local0__ = 1]; upper(\"a\", __local1__) with input as __local2__; "
        "startswith(__local1__, \"A\") with input as __local2__ }\n");
}
