// `with f as r`, a function or builtin replaced by a ref to a rule: OPA keeps the ref
// unevaluated (the compiler's validateWithFunctionValue) and evaluates it where the function
// is called, under the with's replacements. Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package p

v if input.n > 5

r := input.n

f(x) := x + 1

default norm(_, _) := false

grp contains 1 if false

never_called := 1 if {
	x := grp with norm as v
}

called_under_with := y if {
	y := norm(1, 2) with norm as r with input.n as 9
}

builtin_under_with := y if {
	y := [count([1]) | true] with count as r with input.n as 4
}

function_under_with := y if {
	y := f(1) with f as r with input as {"n": 3}
}

undefined_when_called := y if {
	y := norm(1, 2) with norm as v
}
)";

std::string outcome(const char* query) {
    return gavel::test::value_or_error_text(gavel::test::eval_of(query, gavel::test::Setup{.policy = kPolicy}));
}

}  // namespace

TEST_CASE("with f as a rule: the rule is evaluated where f is called, under the with's replacements") {
    CHECK(outcome("data.p.never_called") == "1");
    CHECK(outcome("data.p.called_under_with") == "9");
    CHECK(outcome("data.p.builtin_under_with") == "[4]");
    CHECK(outcome("data.p.function_under_with") == "3");
    CHECK(outcome("data.p.undefined_when_called") == "undefined");
}

namespace {

// A call used as a condition (not captured) of a function replaced by a rule ref: OPA's
// evalCallValue holds unless the replacement is the literal `false`, and the ref is never
// evaluated, so a rule that is false or undefined still makes the condition hold.
const char* kConditionPolicy = R"(package p

f(a, b) := a + b

rf := false

undef_rule if false

h if f(1, 2)

false_rule if f(1, 2) with f as rf

undefined_rule if f(1, 2) with f as undef_rule

negated if not f(1, 2) with f as rf

builtin if count([1]) with count as rf

in_called_rule if h with f as undef_rule

undefined_argument if f(input.nope, 2) with f as rf

captured := x if x := f(1, 2) with f as rf

literal_false if f(1, 2) with f as false

input_value if f(1, 2) with f as input.x

base_data if f(1, 2) with f as data.d.x
)";

std::string condition_outcome(const char* query) {
    return gavel::test::value_or_error_text(gavel::test::eval_of(
        query,
        gavel::test::Setup{.policy = kConditionPolicy, .data = R"({"d": {"x": false}})", .input = R"({"x": false})"}));
}

}  // namespace

TEST_CASE("with f as a rule: a call of f as a condition holds without evaluating the rule") {
    CHECK(condition_outcome("data.p.false_rule") == "true");
    CHECK(condition_outcome("data.p.undefined_rule") == "true");
    CHECK(condition_outcome("data.p.negated") == "undefined");
    CHECK(condition_outcome("data.p.builtin") == "true");
    CHECK(condition_outcome("data.p.in_called_rule") == "true");
    // Its arguments are still evaluated; a captured result is the rule's value.
    CHECK(condition_outcome("data.p.undefined_argument") == "undefined");
    CHECK(condition_outcome("data.p.captured") == "false");
    // A value that is no rule ref is evaluated first, and `false` fails the condition.
    CHECK(condition_outcome("data.p.literal_false") == "undefined");
    CHECK(condition_outcome("data.p.input_value") == "undefined");
    CHECK(condition_outcome("data.p.base_data") == "undefined");
}
