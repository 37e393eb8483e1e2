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
