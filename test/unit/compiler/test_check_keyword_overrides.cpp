// Stage check_keyword_overrides: in v1, input and data cannot be shadowed.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;

TEST_CASE("check_keyword_overrides: rules, arguments and locals named input or data are errors in v1") {
    CHECK(errors_of("package p\ninput := 1\n") ==
          "2:1 rego_compile_error: rules must not shadow input (use a different rule name)\n");
    CHECK(errors_of("package p\nf(input) := 1\n") ==
          "2:3 rego_compile_error: args must not shadow input (use a different variable name)\n");
    CHECK(errors_of("package p\np if { data := 1; data > 0 }\n") ==
          "2:8 rego_compile_error: variables must not shadow data (use a different variable name)\n");
}

TEST_CASE("check_keyword_overrides: v0 modules may shadow them") {
    CHECK(errors_of("package p\ninput := 1\n", true).empty());
    CHECK(errors_of("package p\np { data := 1; data > 0 }\n", true).empty());
}
