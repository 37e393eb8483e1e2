// Refs into data whose leading keys are planned: the walk starts at the rule-tree node
// they reach (`data.a.b` here), and base data along those keys is still read; a `with`
// on data takes the whole walk. Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package a.b

p := data.a.b.c.d

q := data.a.b.p

r := data.a.x.y

s := y if { y := data.a.b.c.d with data.a.b.c as {"d": 2} }

t := y if { y := data.a.b.q with data.a.b.c.d as 3 }

u := data.a.b.missing

v := data.a.b.w.z

w.z := "rule"

x := [k | data.a.b.c[k]]
)";

const char* kData = R"({"a": {"b": {"c": {"d": 1}}, "x": {"y": "base"}}})";

gavel::test::Setup setup() { return {kPolicy, kData, nullptr}; }

}  // namespace

TEST_CASE("a planned data prefix reads base data below and beside the rule tree") {
    using gavel::test::outcome_of;
    CHECK(outcome_of("data.a.b.p", setup()) == "1");
    CHECK(outcome_of("data.a.b.r", setup()) == R"("base")");
    CHECK(outcome_of("data.a.x", setup()) == R"({"y":"base"})");
    CHECK(outcome_of("data.a.b.c", setup()) == R"({"d":1})");
    CHECK(outcome_of("data.a.b.x", setup()) == R"(["d"])");
}

TEST_CASE("a planned data prefix reaches rules, and nothing where there is nothing") {
    using gavel::test::outcome_of;
    CHECK(outcome_of("data.a.b.q", setup()) == "1");
    CHECK(outcome_of("data.a.b.v", setup()) == R"("rule")");
    CHECK(outcome_of("data.a.b.u", setup()) == "undefined");
    CHECK(outcome_of("data.a.b.nothing.below", setup()) == "undefined");
}

TEST_CASE("with on data replaces what a planned prefix would read") {
    using gavel::test::outcome_of;
    CHECK(outcome_of("data.a.b.s", setup()) == "2");
    CHECK(outcome_of("data.a.b.t", setup()) == "3");
    CHECK(outcome_of("data.a.b.p with data.a.b.c.d as 4", setup()) == "4");
    CHECK(outcome_of("data.a.b.p with data.a as {}", setup()) == "undefined");
    CHECK(outcome_of("data.a.b", setup()) ==
          R"({"c":{"d":1},"p":1,"q":1,"r":"base","s":2,"t":3,"v":"rule","w":{"z":"rule"},"x":["d"]})");
}
