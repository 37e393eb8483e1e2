// Values gavel keeps per query and `with` context where OPA evaluates again: a
// comprehension that names no variable of the rest of its clause (comprehension_index.hpp,
// no keys) when evaluating it again would show nothing (no print, trace or
// nondeterministic builtin), and a builtin call in a function's body that reads nothing of
// the call's frame (PTerm::closed). The answers below are OPA 1.7.1's, including the cases
// that look closed and are not (a head, a nested comprehension, an `every` variable or a
// function argument from outside), a `with` on the input and a mocked builtin.

#include <doctest/doctest.h>

#include <string>

#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package t

import rego.v1

limits := [n |
	some c in input.containers
	required := {r | some r in input.required}
	n := count(required - {k | some k, _ in c})
]

head_outer := [x | some x in [1, 2]; y := [x | true]]

nested_outer := [y | some x in [1, 2]; y := [z | z := [x | true]]]

every_var if {
	every v in [1, 2] {
		ys := [v | true]
		ys == [v]
	}
}

f(a) := ys if ys := [a | true]

by_arg := [f(1), f(2)]

with_input := [count(s) | some i in [1, 2]; s := {r | some r in input.required} with input.required as ["x"]]

both := [[a, b] |
	some i in [1, 2]
	a := count({r | some r in input.required})
	b := count({r | some r in input.required}) with input.required as []
]

printed := [n | some i in [1, 2, 3]; s := {r | some r in input.required; print("seen", r)}; n := count(s)]

objects := [o | some i in [1, 2]; o := {k: v | some k, v in input.m}]

exempt(c) if {
	images := object.get(object.get(input, "parameters", {}), "exemptImages", [])
	some prefix in images
	startswith(c.image, prefix)
}

kept := [c.image | some c in input.cs; not exempt(c)]

mocked := [c.image | some c in input.cs; exempt(c) with object.get as fake]

fake(_, _, _) := ["y"]

g(x) := sprintf("%v-%v", [object.get(input, "tag", "none"), x])

tagged := [a, b, c] if {
	a := g(1)
	b := g(2)
	c := g(1) with input.tag as "t"
}
)";

const char* kInput = R"({"containers": [{"cpu": 1}, {"cpu": 1, "memory": 2}, {}], "required": ["cpu", "memory"],
    "m": {"a": 1, "b": 2}, "parameters": {"exemptImages": ["x"]}, "cs": [{"image": "x1"}, {"image": "y1"}, {"image": "z1"}]})";

std::string run(const char* query, std::string* printed = nullptr) {
    gavel::test::Setup s;
    s.policy = kPolicy;
    s.input = kInput;
    return gavel::test::outcome_text(gavel::test::eval_of(query, s, printed));
}

}  // namespace

TEST_CASE("a closed comprehension gives the same answers as evaluating it each time") {
    CHECK(run("data.t.limits") == "[1,0,2]");
    CHECK(run("data.t.objects") == R"([{"a":1,"b":2},{"a":1,"b":2}])");
    CHECK(run("data.t.with_input") == "[1,1]");
    CHECK(run("data.t.both") == "[[2,0],[2,0]]");
}

TEST_CASE("comprehensions that read a variable from outside are not closed") {
    CHECK(run("data.t.head_outer") == "[1,2]");
    CHECK(run("data.t.nested_outer") == "[[[1]],[[2]]]");
    CHECK(run("data.t.every_var") == "true");
    CHECK(run("data.t.by_arg") == "[[1],[2]]");
}

TEST_CASE("a closed comprehension that prints is evaluated each time, as in OPA") {
    std::string printed;
    CHECK(run("data.t.printed", &printed) == "[2,2,2]");
    std::size_t lines = 0;
    for (char c : printed) lines += c == '\n';
    CHECK(lines == 6);
}

TEST_CASE("a builtin call in a function that reads nothing of its frame: kept per `with` context, not under a mock") {
    CHECK(run("data.t.kept") == R"(["y1","z1"])");
    CHECK(run("data.t.mocked") == R"(["y1"])");
    CHECK(run("data.t.tagged") == R"(["none-1","none-2","t-1"])");
}
