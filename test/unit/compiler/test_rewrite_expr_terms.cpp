// Stage rewrite_expr_terms: nested calls bound to variables of their own.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::rules_of;

TEST_CASE("rewrite_expr_terms: f(g(y)) evaluates g first into an output variable") {
    CHECK(rules_of("package p\nf(a) := a\ng(a) := a\np if { y := 1; z := f(g(y)); z }\n") ==
          "f(__local0__) = __local0__ if { true }\n"
          "g(__local1__) = __local1__ if { true }\n"
          "p = true if { __local2__ = 1; data.p.g(__local2__, __local4__); data.p.f(__local4__, __local5__); "
          "__local3__ = __local5__; __local3__ }\n");
}

TEST_CASE("rewrite_expr_terms: a negated call's operands are evaluated outside the negation") {
    CHECK(rules_of("package p\np if { not startswith(lower(input.x), \"a\") }\n") ==
          "p = true if { __local1__ = input.x; lower(__local1__, __local0__); not startswith(__local0__, \"a\") }\n");
}
