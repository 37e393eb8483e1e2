// OPA's unification (topdown biunify) fails a known value against a comprehension of another
// kind without evaluating the comprehension, so its calls never run: under
// --strict-builtin-errors `x = [y | y := to_number("z")]` with x bound to 1 is undefined,
// not an error. A comprehension on the left, or one of the value's kind, is evaluated.
// Expected outcomes are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package p

a if { x := input.one; x = [y | y := to_number("z")] }

b if { x := input.one; x = {y: 1 | y := to_number("z")} }

c if { x := input.arr; x = [y | y := to_number("z")] }

d if { x := input.one; [y | y := to_number("z")] = x }
)";

std::string outcome(const char* query) {
    return gavel::test::outcome_of(
        query,
        gavel::test::Setup{.policy = kPolicy, .input = R"({"one": 1, "arr": [1]})", .strict_builtin_errors = true});
}

}  // namespace

TEST_CASE("a value is not unified with a comprehension of another kind") {
    CHECK(outcome("data.p.a") == "undefined");
    CHECK(outcome("data.p.b") == "undefined");
    CHECK(outcome("data.p.c") == "eval_builtin_error");
    CHECK(outcome("data.p.d") == "eval_builtin_error");
}
