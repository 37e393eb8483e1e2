// Calls nested in the arguments of a call whose arguments are all known are evaluated at
// once, in argument order, and what cannot be (array literals below the top, long ones,
// nesting deeper than the direct path takes) goes the general way with the same answer.
// Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package p

f(x) := x + 1

long := concat("", [input.s, input.s, input.s, input.s, input.s, input.s, input.s, input.s])

inner_array := upper(concat("-", [input.s, input.s]))

compared if count(input.xs) + 1 > 2

chained := f(f(f(1)))

counted := f(count(input.xs))

undefined_inner := x if {
	x := upper(lower(input.missing))
}

undefined_first := x if {
	x := object.get(input.missing, upper(input.s), 1)
}

deep := abs(abs(abs(abs(abs(abs(abs(abs(input.n))))))))

sliced := substring(input.s2, count(input.s2) - 2, -1)

no_suffix if not endswith(lower(input.s), "z")

failing := x if {
	x := abs(to_number(input.s)) + 1
}
)";

const char* kInput = R"({"s": "a", "s2": "hello", "xs": [1, 2, 3], "n": -3})";

gavel::test::Setup setup(bool strict = false) { return {kPolicy, nullptr, kInput, strict}; }

}  // namespace

TEST_CASE("nested calls over known arguments give OPA's values") {
    using gavel::test::outcome_of;
    CHECK(outcome_of("data.p.compared", setup()) == "true");
    CHECK(outcome_of("data.p.chained", setup()) == "4");
    CHECK(outcome_of("data.p.counted", setup()) == "4");
    CHECK(outcome_of("data.p.deep", setup()) == "3");
    CHECK(outcome_of("data.p.sliced", setup()) == R"("lo")");
    CHECK(outcome_of("data.p.no_suffix", setup()) == "true");
}

TEST_CASE("array literals too long or too deep for the direct path go the general way") {
    using gavel::test::outcome_of;
    CHECK(outcome_of("data.p.long", setup()) == R"("aaaaaaaa")");
    CHECK(outcome_of("data.p.inner_array", setup()) == R"("A-A")");
}

TEST_CASE("an undefined argument ends a nested call, an error in one ends the query") {
    using gavel::test::outcome_of;
    CHECK(outcome_of("data.p.undefined_inner", setup()) == "undefined");
    CHECK(outcome_of("data.p.undefined_first", setup()) == "undefined");
    CHECK(outcome_of("data.p.failing", setup()) == "undefined");
    CHECK(outcome_of("data.p.failing", setup(true)) == "eval_builtin_error");
}
