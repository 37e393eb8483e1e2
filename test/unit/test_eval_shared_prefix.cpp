// Clauses of a partial set or object that begin with the same literals (up to the names of
// their variables) search those literals once and share the solutions
// (runtime/eval/shared_prefix.hpp). Nothing may show it: the values, conflicts, strict-mode
// errors and prints below are OPA 1.7.1's, and literals with an effect a repetition would
// show (a print in a function called, an embedder's builtin) are searched by each clause.

#include <doctest/doctest.h>

#include <string>

#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package t

exempt(c) if c.image == "skip"

v contains msg if {
	c := input.cs[_]
	not exempt(c)
	c.cpu > 2
	msg := sprintf("%s cpu", [c.name])
}

v contains msg if {
	d := input.cs[_]
	not exempt(d)
	d.mem > 4
	msg := sprintf("%s mem", [d.name])
}

v contains msg if {
	e := input.cs[_]
	not exempt(e)
	not e.name
	msg := "unnamed"
}

o[name] := n if {
	c := input.cs[i]
	name := object.get(c, "name", "none")
	n := i
}

o[name] := "late" if {
	c := input.cs[i]
	name := object.get(c, "name", "none")
	i > 5
}

clash[name] := n if {
	c := input.cs[i]
	name := object.get(c, "name", "none")
	n := i
}

clash[name] := "other" if {
	c := input.cs[i]
	name := object.get(c, "name", "none")
	i == 1
}

k contains "a" if {
	input.kind == "K"
	input.n > 1
}

k contains "b" if {
	input.kind == "K"
	input.n > 0
}

k contains "c" if {
	input.kind == "K"
	input.n > 5
}

s contains 1 if {
	x := input.xs[_]
	y := to_number(x)
	y > 0
}

s contains 2 if {
	x := input.xs[_]
	y := to_number(x)
	y > 1
}

f(x) if {
	print("f", x)
	x > 10
}

p contains 1 if {
	x := input.ns[_]
	not f(x)
	x == 1
}

p contains 2 if {
	x := input.ns[_]
	not f(x)
	x == 2
}
)";

const char* kInput = R"({"cs": [{"name": "a", "cpu": 3, "mem": 1, "image": "x"},
                                  {"name": "b", "cpu": 5, "mem": 9, "image": "skip"},
                                  {"cpu": 5, "mem": 5, "image": "y"}],
                         "kind": "K", "n": 2, "xs": ["1", "a", "3"], "ns": [1, 2]})";

gavel::test::Setup setup(bool strict = false) { return {kPolicy, nullptr, kInput, strict}; }

}  // namespace

TEST_CASE("clauses sharing their first literals decide as each would alone") {
    using gavel::test::outcome_of;
    CHECK(outcome_of("data.t.v", setup()) == R"(["a cpu","unnamed"])");
    CHECK(outcome_of("data.t.o", setup()) == R"({"a":0,"b":1,"none":2})");
    // Literals that name no variable: their one solution (or none) is shared.
    CHECK(outcome_of("data.t.k", setup()) == R"(["a","b"])");
    CHECK(outcome_of("data.t.k", {kPolicy, nullptr, R"({"kind": "J", "n": 9})"}) == "[]");
    CHECK(outcome_of("data.t.s", setup()) == "[1,2]");
}

TEST_CASE("clauses sharing their first literals still conflict and fail as in OPA") {
    using gavel::test::value_or_error_text;
    CHECK(value_or_error_text(gavel::test::eval_of("data.t.clash", setup())) ==
          "eval_conflict_error: object keys must be unique");
    CHECK(value_or_error_text(gavel::test::eval_of("data.t.s", setup(true))) ==
          R"(eval_builtin_error: to_number: strconv.ParseFloat: parsing "a": invalid syntax)");
}

TEST_CASE("a shared literal calling a function that prints is searched by each clause") {
    // f is undefined for these arguments, so OPA runs it (and prints) for each clause.
    std::string printed;
    CHECK(gavel::test::outcome_text(gavel::test::eval_of("data.t.p", setup(), &printed)) == "[1,2]");
    CHECK(printed == "f 1\nf 2\nf 1\nf 2\n");
}

TEST_CASE("a shared literal calling an embedder's builtin is searched by each clause") {
    gavel::Engine engine;
    int calls = 0;
    engine.register_builtin("counted", 1, [&](gavel::BuiltinCall& call) -> std::optional<gavel::runtime::Value> {
        ++calls;
        return call.args.at(0);
    });
    REQUIRE(engine
                .add_policy("test.rego", R"(package c

q contains x if {
	x := counted(input.ns[_])
	x > 1
}

q contains x if {
	y := counted(input.ns[_])
	x := y * 10
}
)")
                .empty());
    auto q = engine.prepare("data.c.q");
    REQUIRE(q.ok());
    auto input = gavel::runtime::parse_json(kInput);
    gavel::EvalOptions options;
    options.input = &input.value;
    CHECK(gavel::test::outcome_text(q.value->eval(options)) == "[2,10,20]");
    CHECK(calls == 4);
}
