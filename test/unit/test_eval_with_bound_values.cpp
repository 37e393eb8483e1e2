// A `with` expression sees, and leaves, the values variables were bound to before it: also
// values taken from a rule evaluated earlier (held in the rule caches, which `with` sets
// aside while it runs). Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

// Few rules, so the caches are held inline; t is evaluated before the rules reading it.
const char* kPolicy = R"(package p

t := 5

a := t

b := x if {
	x := t
	true with input as 1
}

c := y if {
	x := t
	y := x with input as 1
}

d := [x, y] if {
	x := data.p.t
	y := 1 with data.p.t as 7
}
)";

std::string outcome(const char* query) {
    return gavel::test::value_or_error_text(gavel::test::eval_of(query, gavel::test::Setup{.policy = kPolicy}));
}

}  // namespace

TEST_CASE("with: variables bound before it keep their values, inside and after it") {
    CHECK(outcome("data.p") == R"({"a":5,"b":5,"c":5,"d":[5,1],"t":5})");
    CHECK(outcome("[data.p.a, data.p.b, data.p.c, data.p.d]") == "[5,5,5,[5,1]]");
}

TEST_CASE("with: each solution continues the body at once, so a later strict builtin error comes before a conflict") {
    // info's second value (a conflict) is looked for only after the rest of allow's body ran on
    // the first (OPA's evalWithPop/Push around the rest of the query). OPA 1.7.1's outcomes.
    const char* policy = R"(package p

info := x if { some x in [1, 2] }

allow := 1 if {
	x := info with input.q as 1
	semver.compare(input.a, "a")
}

plain := 1 if {
	x := info with input.q as 1
}
)";
    auto strict = [&](const char* query) {
        return gavel::test::value_or_error_text(
            gavel::test::eval_of(query, {.policy = policy, .input = R"({"a": "b"})", .strict_builtin_errors = true}));
    };
    CHECK(strict("data.p.allow") ==
          "eval_builtin_error: semver.compare: operand 1: string \"b\" is not a valid SemVer");
    CHECK(strict("data.p.plain") == "eval_conflict_error: complete rules must not produce multiple outputs");
}
