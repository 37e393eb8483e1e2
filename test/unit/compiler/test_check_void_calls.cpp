// Stage check_void_calls: a function without a result cannot be a value.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::errors_of;

TEST_CASE("check_void_calls: print used as a value") {
    CHECK(errors_of("package p\nx := print(1)\n") == "2:6 rego_type_error: print(1) used as value\n");
    CHECK(errors_of("package p\nx if { y := [print(1)]; y }\n") == "2:14 rego_type_error: print(1) used as value\n");
    CHECK(errors_of("package p\nx if { print(1) }\n").empty());
}
