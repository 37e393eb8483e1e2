// Stage rewrite_template_strings: $"..." becomes internal.template_string.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;
using gavel::test::rules_of;

TEST_CASE("rewrite_template_strings: text stays, a variable is a one-element set, anything else a comprehension") {
    // (The comprehension is then bound before the call by rewrite_dynamic_terms.)
    CHECK(rules_of("package p\nm := $\"a {input.x} b\"\n") ==
          "m = __local1__ if { __local2__ = {__local0__ | __local0__ = input.x}; "
          "internal.template_string([\"a \", __local2__, \" b\"], __local1__) }\n");
    CHECK(rules_of("package p\nm := s if { x := 1; s := $\"x={x}\" }\n") ==
          "m = __local1__ if { __local0__ = 1; internal.template_string([\"x=\", {__local0__}], __local2__); "
          "__local1__ = __local2__ }\n");
}

TEST_CASE("rewrite_template_strings: a part using a variable nothing binds is undeclared") {
    CHECK(errors_of("package p\nm := $\"{input[y]}\"\n") == "2:9 rego_compile_error: var y is undeclared\n");
}
