// The order in which OPA evaluates the rules of a partial document with ref heads: its rule
// tree keeps a rule at the node of the head's ground prefix (`r[x]` at r, `r[1][x]` at
// r[1], `r[2]` at r[2]) and an index gets a node's own rules first, then those below it,
// children in key order. The first error under --strict-builtin-errors shows which rule ran
// first. Expected outcomes are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

std::string first_error(const char* policy, const char* query) {
    auto r = gavel::test::eval_of(query, {.policy = policy, .strict_builtin_errors = true});
    REQUIRE_FALSE(r.ok());
    return r.error->code + ": " + r.error->message;
}

const std::string kSubstring =
    "eval_type_error: substring: operand 3 must be integer number but got floating-point number";

}  // namespace

TEST_CASE("a rule with a variable key runs before the rules below its node") {
    const char* policy = R"(package p

r[4] := 1 if {
	x := 3 % 0
}

r[substring("a", 2, 1.0)] := 2
)";
    CHECK(first_error(policy, "data.p") == kSubstring);
    CHECK(first_error(policy, "data.p.r") == kSubstring);
}

TEST_CASE("nodes without rules of their own are visited in key order, each node's rules first") {
    const char* policy = R"(package p

r[2] := 1 if {
	x := 3 % 0
}

r[1][3] := 2 if {
	x := 1 % 0.5
}

r[1][x] := 3 if {
	x := "d"
	y := substring("a", 2, 1.0)
}
)";
    CHECK(first_error(policy, "data.p.r") == kSubstring);
}

TEST_CASE("a conflict below a variable key is found before a later node's builtin error") {
    const char* policy = R"(package p

deny[0.05].v := bits.and(0.1, 1)

deny[x][1] := y if {
	some x in [1e5, 2.675]
	some y in [1E3, 2]
}
)";
    CHECK(first_error(policy, "data.p") == "eval_conflict_error: object keys must be unique");
}
