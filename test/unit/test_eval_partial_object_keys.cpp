// The number keys of a partial object rule, as OPA's object inserts and finds them: a key
// written as an integer finds only a key written so, another number any key of its value
// (the latest). A value equal to the one there leaves that one. Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package p

s[x] := true if { some x in [1.0, 1, 1] }

t[x] := x if { some x in [1, 1.0] }

u[x] contains 1 if { some x in [1e0, 1] }

w[x] := 1 if { some x in [1e0, 1, 1.0] }
)";

std::string outcome(const char* query) { return gavel::test::outcome_of(query, gavel::test::Setup{.policy = kPolicy}); }

}  // namespace

TEST_CASE("a partial object keeps 1.0 and then 1 as two keys, 1 and then 1.0 as one") {
    CHECK(outcome("data.p.s") == R"({"1":true,"1.0":true})");
    CHECK(outcome("data.p.t") == R"({"1":1})");
    CHECK(outcome("data.p.u") == R"({"1":[1],"1e0":[1]})");
    CHECK(outcome("data.p.w") == R"({"1":1,"1e0":1})");
    CHECK(outcome("count(data.p.s)") == "2");
}
