// The nodes of OPA's rule tree that no rule put a value at: every constant key of a ref head
// (`o[null][1] := v`, `n[1.5e2].w := v`, `s[1] contains v`) is a node, and a node that holds
// no value still shows in its document, as {} (a partial set's own node as an empty set).
// Below a rule with a variable key (`v[x] := ...`) the rules form one document, where a
// partial rule that produced nothing is no key at all. Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package p

o[null][1] := 1 if false

n[1.5e2].w := 1 if false

c[1][x] := 1 if { x := 1; false }

s[1] contains 2 if false

t[1][2] := 1 if false
t[1][3] := 1

g[1][x] := 1 if { x := 1; false }
g[1][2][3] := 1 if false

f[x][1] := 1 if { x := 1; false }
f[1][2] := 1 if false

v["a"][1] := 1 if false
v[x] := 2 if { x := "c"; false }

w["a"] contains 1 if false
w[x] := 2 if { x := "c"; false }
)";

std::string outcome(const char* query) { return gavel::test::outcome_of(query, gavel::test::Setup{.policy = kPolicy}); }

}  // namespace

TEST_CASE("a constant key of a ref head is a node of the document even when no rule below it succeeds") {
    CHECK(outcome("data.p.o") == R"({"null":{}})");
    CHECK(outcome("data.p.o[null]") == "{}");
    CHECK(outcome("data.p.n") == R"({"1.5e2":{}})");
    CHECK(outcome("data.p.c") == R"({"1":{}})");
    CHECK(outcome("data.p.s") == R"({"1":[]})");
    CHECK(outcome("data.p.s[1]") == "[]");
    CHECK(outcome("data.p.t") == R"({"1":{"3":1}})");
}

TEST_CASE("below a rule with a variable key, the rules are one document without empty nodes") {
    CHECK(outcome("data.p.g") == R"({"1":{}})");
    CHECK(outcome("data.p.f") == "{}");
    CHECK(outcome("data.p.v") == "{}");
    CHECK(outcome("data.p.v.a") == "undefined");
    CHECK(outcome("data.p.w") == "{}");
}
