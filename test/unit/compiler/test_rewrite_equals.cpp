// Stage rewrite_equals: a == b in modules is unified as a = b after the safety check.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;
using gavel::test::query_of;
using gavel::test::rules_of;

TEST_CASE("rewrite_equals: == becomes = in modules, after == needed both sides bound") {
    CHECK(rules_of("package p\np if { input.a == 1 }\n") == "p = true if { input.a = 1 }\n");
    CHECK(errors_of("package p\np if { x == 1 }\n") == "2:8 rego_unsafe_var_error: var x is unsafe\n");
}

TEST_CASE("rewrite_equals: queries keep ==, whose value is true or false") {
    // (The ref operand is then bound first by rewrite_dynamic_terms.)
    CHECK(query_of("input.a == 1") == "__localq0__ = input.a; equal(__localq0__, 1)");
}
