// Stage rewrite_comprehension_terms: a comprehension head that needs evaluation is bound in its body.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::rules_of;

TEST_CASE("rewrite_comprehension_terms: a ref head is evaluated in the body, so its variables iterate") {
    CHECK(rules_of("package p\nwanted := [\"a\", \"b\"]\nx := [wanted[i] | true]\n") ==
          "wanted = [\"a\", \"b\"] if { true }\n"
          "x = __local1__ if { __local1__ = [__local0__ | __local0__ = data.p.wanted[i]] }\n");
}

TEST_CASE("rewrite_comprehension_terms: object comprehension keys and values alike") {
    CHECK(rules_of("package p\no := {input.k[i]: input.v[i] | true}\n") ==
          "o = __local2__ if { __local2__ = {__local0__: __local1__ | __local0__ = input.k[i]; __local1__ = "
          "input.v[i]} }\n");
}
