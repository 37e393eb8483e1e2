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
