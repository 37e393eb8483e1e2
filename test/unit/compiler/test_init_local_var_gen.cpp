// Stage init_local_var_gen: generated names never collide with the policy's own.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::rules_of;

TEST_CASE("init_local_var_gen: generated names skip those the policy uses itself (not all past them, as OPA)") {
    CHECK(rules_of("package p\n__local0__ := 1\np if { x := 1 }\n") ==
          "__local0__ = 1 if { true }\np = true if { __local1__ = 1 }\n");
    // Also when the name is a variable deep in a body.
    CHECK(rules_of("package p\np if { y := [1 | __local0__ = 1]; y }\n") ==
          "p = true if { __local1__ = [1 | __local0__ = 1]; __local1__ }\n");
    CHECK(rules_of("package p\np if { y := [1 | __local3__ = 1]; y }\n") ==
          "p = true if { __local0__ = [1 | __local3__ = 1]; __local0__ }\n");
}
