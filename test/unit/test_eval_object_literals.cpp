// An object literal whose items evaluate to one key twice is no conflict in OPA:
// plugging it inserts the items in the order of their key terms (constants, then
// variables) and the last one wins. Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"
#include "runtime/json.hpp"

namespace {

std::string value_of(const char* policy, const char* query) {
    return gavel::test::value_or_error_text(gavel::test::eval_of(query, {.policy = policy}));
}

const char* kPolicy = R"(package p

a := {"x": -1, "x": y} if y := 2

b := {"x": y, "x": -1} if y := 2

e := {k1: 1, k2: 2} if {
	k1 := "a"
	k2 := "a"
}

f := {k1: 1, "a": 2} if k1 := "a"

n := count({"x": -1, "x": y}) if some y in [5]
)";

}  // namespace

TEST_CASE("an object literal with a key twice keeps the item whose key term sorts last") {
    CHECK(value_of(kPolicy, "data.p.a") == R"({"x":2})");
    CHECK(value_of(kPolicy, "data.p.b") == R"({"x":-1})");
    CHECK(value_of(kPolicy, "data.p.e") == R"({"a":2})");
    CHECK(value_of(kPolicy, "data.p.f") == R"({"a":1})");
    CHECK(value_of(kPolicy, "data.p.n") == "1");
}
