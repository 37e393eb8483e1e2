// Stage rewrite_dynamic_terms: refs and comprehensions given as operands are bound first.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::rules_of;

TEST_CASE("rewrite_dynamic_terms: a ref operand is bound before the call") {
    CHECK(rules_of("package p\nr if { count(data.a) = 1 }\n") ==
          "r = true if { __local1__ = data.a; count(__local1__, __local0__); __local0__ = 1 }\n");
}

TEST_CASE("rewrite_dynamic_terms: a ref that is a side of = stays where it is") {
    CHECK(rules_of("package p\nr if { input.x = 1 }\n") == "r = true if { input.x = 1 }\n");
}

TEST_CASE("rewrite_dynamic_terms: a negated call's ref operand is bound outside the negation") {
    CHECK(rules_of("package p\nr if { not startswith(input.x, \"a\") }\n") ==
          "r = true if { __local0__ = input.x; not startswith(__local0__, \"a\") }\n");
}
