// OPA's comprehension index (runtime/eval/comprehension_index.hpp): a comprehension that
// binds an outer variable itself is evaluated once, with that variable unbound, and its
// answers grouped by the variable's value. The values, prints and errors below are
// OPA 1.7.1's: the grouped evaluation prints once per element, raises a builtin error for
// an element no outer value asks for (strict mode), and lets a later value win for a key
// given twice in an object comprehension; a key it has no group for is evaluated again.

#include <doctest/doctest.h>

#include <string>

#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package t

import rego.v1

joined := [ys |
	some x in ["1", "2", "3"]
	ys := [y | some y in input.l; print("join", y); y = x]
]

compared := [ys |
	some x in ["1", "2", "3"]
	ys := [y | some y in input.l; print("cmp", y); y == x]
]

looked_up := [ys |
	some x in ["a", "b"]
	ys := [y | print("lookup"); input.m[x] = y]
]

strict := [ys |
	some x in ["1", "2"]
	ys := [n | some y in ["1", "2", "z"]; y = x; n := to_number(y)]
]

last_wins := [o |
	some x in [1]
	o := {k: v | some v in [1, 2]; k := "a"; x = 1}
]

pairs := [ys |
	some a in [1, 2]
	some b in [1, 2]
	ys := [y | some y in [[1, 1], [1, 2], [2, 2], [1, 1]]; y = [a, b]]
]

ordered := [ys |
	some x in [1, 2]
	ys := [y | some y in [5, 4, 3, 2, 1]; z := y % 2; z + 1 = x]
]

scoped := [a, b] if {
	a := joined
	b := joined with input.l as ["2", "2"]
}
)";

const char* kInput = R"({"l": ["1", "2", "3"], "m": {"a": 1, "b": 2}})";

std::string run(const char* query, std::string* printed, bool strict = false, const char* input = kInput) {
    gavel::test::Setup s;
    s.policy = kPolicy;
    s.input = input;
    s.strict_builtin_errors = strict;
    return gavel::test::outcome_text(gavel::test::eval_of(query, s, printed));
}

}  // namespace

TEST_CASE("an indexed comprehension is evaluated once for every value of its key") {
    std::string printed;
    CHECK(run("data.t.joined", &printed) == R"([["1"],["2"],["3"]])");
    CHECK(printed == "join 1\njoin 2\njoin 3\n");  // not once per outer value: 9 lines
    printed.clear();
    // `==` is unification to OPA's compiler as well: indexed alike.
    CHECK(run("data.t.compared", &printed) == R"([["1"],["2"],["3"]])");
    CHECK(printed == "cmp 1\ncmp 2\ncmp 3\n");
}

TEST_CASE("a key with no group of its own evaluates the comprehension again") {
    std::string printed;
    // Only "2" has a group: "1" and "3" each search the two elements again, as in OPA.
    CHECK(run("data.t.joined", &printed, false, R"({"l": ["2", "2"]})") == R"([[],["2","2"],[]])");
    CHECK(printed == "join 2\njoin 2\njoin 2\njoin 2\njoin 2\njoin 2\n");
}

TEST_CASE("a comprehension that looks up by an outer variable is not indexed") {
    std::string printed;
    CHECK(run("data.t.looked_up", &printed) == "[[1],[2]]");
    CHECK(printed == "lookup\nlookup\n");
}

TEST_CASE("the grouped evaluation shows what OPA's shows") {
    std::string printed;
    CHECK(run("data.t.strict", &printed) == "[[1],[2]]");
    // to_number("z") runs while the index is built, though no outer value asks for "z".
    CHECK(run("data.t.strict", &printed, true) == "eval_builtin_error");
    // OPA inserts into an indexed object comprehension without a conflict check.
    CHECK(run("data.t.last_wins", &printed) == R"([{"a":2}])");
    CHECK(run("data.t.last_wins", &printed, true) == R"([{"a":2}])");
}

TEST_CASE("several keys, and the order of an array's elements") {
    std::string printed;
    CHECK(run("data.t.pairs", &printed) == "[[[1,1],[1,1]],[[1,2]],[],[[2,2]]]");
    CHECK(run("data.t.ordered", &printed) == "[[4,2],[5,3,1]]");
}

TEST_CASE("`with` builds its own index") {
    std::string printed;
    CHECK(run("data.t.scoped", &printed) == R"([[["1"],["2"],["3"]],[[],["2","2"],[]]])");
    CHECK(printed == "join 1\njoin 2\njoin 3\njoin 2\njoin 2\njoin 2\njoin 2\njoin 2\njoin 2\n");
}
