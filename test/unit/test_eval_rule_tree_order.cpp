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

std::string first_error(const char* policy, const char* query, const char* input = nullptr) {
    auto r = gavel::test::eval_of(query, {.policy = policy, .input = input, .strict_builtin_errors = true});
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

// OPA indexes a node whose rules have a variable key together with the rules below it, and
// its index trie puts a rule that tests nothing before one testing input (`z := input.one`).
TEST_CASE("rules below a variable key that test nothing run before the node's own rules testing input") {
    const char* policy = R"(package p

o[x] := y if {
	z := input.one
	x := 1
	y := [1, 2][_]
}

o["a"] := 5 if {
	to_number("x")
}
)";
    const std::string to_number = R"(eval_builtin_error: to_number: strconv.ParseFloat: parsing "x": invalid syntax)";
    const char* input = R"({"one": 1, "n": 0})";
    CHECK(first_error(policy, "data.p.o", input) == to_number);
    CHECK(first_error(policy, "data.p", input) == to_number);
    // Both test input, other refs: the rule below sits on the trie's "undefined" branch of
    // the node's ref, which a lookup takes first.
    const char* both_guarded = R"(package p

o[x] := y if {
	z := input.one
	x := 1
	y := [1, 2][_]
}

o["a"] := 5 if {
	input.n = n
	to_number("x")
}
)";
    CHECK(first_error(both_guarded, "data.p.o", input) == to_number);
    // The node's own rule tests nothing: it runs first, and its conflict is the error.
    const char* own_unguarded = R"(package p

o[x] := y if {
	x := 1
	y := [1, 2][_]
}

o["a"] := 5 if {
	z := input.one
	to_number("x")
}
)";
    CHECK(first_error(own_unguarded, "data.p.o", input) == "eval_conflict_error: object keys must be unique");
}
