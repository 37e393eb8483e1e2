// Stage rewrite_refs_in_head: head keys, values and arguments needing evaluation are bound in the body.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;
using gavel::test::rules_of;

TEST_CASE("rewrite_refs_in_head: a key or value with refs is bound in the body") {
    CHECK(rules_of("package p\nq contains {\"foo\": input.foo[i]} if { i < 100 }\n") ==
          "q contains __local0__ if { __local1__ = input.foo[i]; __local0__ = {\"foo\": __local1__}; lt(i, 100) }\n");
    CHECK(rules_of("package p\nv := [x | x := input[_]]\n") ==
          "v = __local1__ if { __local1__ = [__local0__ | __local0__ = input[_]] }\n");
}

TEST_CASE("rewrite_refs_in_head: input and data in a head are bound, never unsafe") {
    CHECK(errors_of("package p\nx := input if { true }\ny := input.a\n").empty());
}
