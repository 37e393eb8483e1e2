// OPA's compiler hoists a call out of the expression that uses it and runs it first
// (`input.one.a == {0.1: json.remove(x, [])}` runs json.remove before reading input.one.a).
// gavel evaluates a hoisted call in place only where nothing that may be undefined or fail
// comes before it, so the call's strict error still comes first. Expected outcomes are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package p

a := 1 if {
	input.one.a == {0.1: json.remove(data.d.list, [])}
}

e := 1 if {
	input.one.a == to_number("z")
}

d := 1 if {
	x := input.arr[to_number("z")]
}
)";

std::string outcome(const char* query) {
    return gavel::test::outcome_of(
        query,
        gavel::test::Setup{.policy = kPolicy, .data = R"({"d": {"list": null}})", .strict_builtin_errors = true});
}

}  // namespace

TEST_CASE("a call hoisted out of an expression runs before the expression's other operands") {
    CHECK(outcome("data.p.a") == "eval_type_error");
    CHECK(outcome("data.p.d") == "eval_builtin_error");
    // Unless OPA's index skips the rule first: input.one.a is undefined.
    CHECK(outcome("data.p.e") == "undefined");
}
