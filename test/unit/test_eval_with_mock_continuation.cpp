// `with count as product`: what follows a mocked call in the same expression runs with the
// mocks in force again. A rule whose body calls the mocked builtin, read inside a
// comprehension, has its call mocked, and so does the call that uses its value after it
// (gavel ran the rest of the expression without the mocks). Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include "test/unit/eval_outcome.hpp"

using gavel::test::outcome_of;

namespace {

const char* kPolicy = R"(package p

o := c if { c := count([]) }

in_comprehension := x if { x := [y | y := count([5, o])] with count as product }

read_first := x if { x := [y | z := o; y := count([5, z])] with count as product }

literal := x if { x := [count([5, o])] with count as product }

f(x) := x * 10

g(x) := x + 1

h := f(1)

functions := x if { x := [y | y := f(h)] with f as g }
)";

}  // namespace

TEST_CASE("a mocked call's continuation keeps the expression's mocks") {
    gavel::test::Setup s{kPolicy};
    CHECK(outcome_of("data.p.in_comprehension", s) == "[5]");  // product([5, product([])])
    CHECK(outcome_of("data.p.read_first", s) == "[5]");
    CHECK(outcome_of("data.p.literal", s) == "[5]");
    CHECK(outcome_of("data.p.functions", s) == "[3]");  // g(g(1))
}

TEST_CASE("a mocked call's strict error still comes from the mock") {
    gavel::test::Setup s{R"(package p

o := c if { c := count([]) }

b := x if { x := [y | y := count([5, "a", o])] with count as product }
)",
                         nullptr, nullptr, true};
    CHECK(outcome_of("data.p.b", s) == "eval_type_error");
}
