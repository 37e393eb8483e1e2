// A complete rule read again once its value is settled (runtime/eval/evaluator.cpp
// direct_settled_rule): `count(s) > i` in a loop or a function reads the rule cache
// directly. The answers must stay the walk's: the rule's value, a key below it, nothing for
// an undefined rule, its default, a `with` that replaces the rule or what it reads, and base
// data beside the rule tree. Each result below is OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package t

import rego.v1

s := {x | some x in input.xs}

o := {"k": count(input.xs), "n": {"m": "deep"}}

missing if input.nope

default fallback := 7

fallback := 1 if input.nope

f(i) if count(s) > i

g(k) := o[k]

loop := [i | some i in [0, 1, 2, 3]; count(s) > i]

in_function := [i | some i in [0, 1, 2, 3]; f(i)]

keyed := [v | some k in ["k", "n", "z"]; v := g(k)]

deep := [o.n.m | some _ in [1, 2]]

none := [i | some i in [1, 2]; missing]

defaults := [x | some i in [1, 2]; x := fallback + i]

replaced := [[count(s), y] | some y in [1, 2]; count(s) > 0; y2 := count(s) with s as {9}; y2 == 1]

reread := [n | some _ in [1, 2]; _ := count(s); n := count(s) with input.xs as [1, 2, 3, 4, 5]]
)";

std::string run(const char* query) {
    gavel::test::Setup s;
    s.policy = kPolicy;
    s.input = R"({"xs": ["a", "b", "a"]})";
    return gavel::test::outcome_of(query, s);
}

}  // namespace

TEST_CASE("a settled complete rule read again gives the walk's answers") {
    CHECK(run("data.t.loop") == "[0,1]");
    CHECK(run("data.t.in_function") == "[0,1]");
    CHECK(run("data.t.keyed") == R"([3,{"m":"deep"}])");
    CHECK(run("data.t.deep") == R"(["deep","deep"])");
    CHECK(run("data.t.none") == "[]");
    CHECK(run("data.t.defaults") == "[8,9]");
    CHECK(run("data.t.replaced") == "[[2,1],[2,2]]");
    CHECK(run("data.t.reread") == "[5,5]");
}

TEST_CASE("a settled rule beside base data: the rule's value, and base data where no rule is") {
    gavel::test::Setup s;
    s.policy = "package t\nimport rego.v1\nr := 3\nuse := [x | some i in [1, 2]; x := r + i]\n";
    s.data = R"({"t": {"b": 10}})";
    CHECK(gavel::test::outcome_of("data.t.use", s) == "[4,5]");
    CHECK(gavel::test::outcome_of("[x | some i in [1, 2]; x := data.t.b + i]", s) == "[11,12]");
}
