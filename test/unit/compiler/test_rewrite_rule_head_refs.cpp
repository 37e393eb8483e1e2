// Stage rewrite_rule_head_refs: head ref parts that are neither scalars nor
// variables are bound in the body.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::rules_of;

TEST_CASE("rewrite_rule_head_refs: a ref or call in a head ref is bound in the body") {
    CHECK(rules_of("package p\nq[input.x] := 1\n") == "q[__local0__] = 1 if { __local0__ = input.x }\n");
    CHECK(rules_of("package p\nq.r[lower(input.x)] := 1\n") ==
          "q.r[__local0__] = 1 if { __local2__ = input.x; lower(__local2__, __local1__); __local0__ = __local1__ }\n");
}

TEST_CASE("rewrite_rule_head_refs: scalars and variables stay in the head") {
    CHECK(rules_of("package p\nq.r[\"s\"][x] := 1 if { some x in [1] }\n").rfind("q.r.s[", 0) == 0);
}
