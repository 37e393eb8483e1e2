// OPA's rule index decides which clauses run at all (v1/ast/index.go): a clause
// whose indexed ref is undefined or does not match is skipped before its body
// runs, so a builtin error earlier in that body never happens. Under
// --strict-builtin-errors the first builtin error recorded is the answer, even
// when a conflict ends evaluation later. Expected outcomes are OPA 1.7.1's
// (`opa eval --strict-builtin-errors` on the same policy and input).

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

using gavel::Engine;
using gavel::EvalOptions;
using gavel::runtime::Value;

namespace {

const char* kPolicy = R"(package p

s if {
	to_number("s")
	x := data.d.z
}

t if {
	to_number("t")
	input.a == "q"
}

f(a) := 1 if {
	to_number("f")
	a == 3
}

w := 1 if {
	false
} else := 2 if {
	to_number("w")
	input.zz == 1
} else := 3

printing if {
	to_number("printing")
	x := data.d.z
	print(x)
}

g(a) if {
	to_number("g")
	glob.match("a.*", [], a)
}

h if {
	to_number("h")
	input.pair = [x, "b"]
}

e := 1 if {
	true
}

e := 1 if {
	to_number("e")
}

e := 2 if {
	input.a == 5
	false
}

x := 1

x := 2

bad := to_number("bad")

first if {
	true
}

first if {
	to_number("first")
}

q if {
	not to_number("q")
	data.p.x == 1
}

order contains 1 if {
	to_number("scalar")
	input.n == 1
}

order contains 2 if {
	to_number("unguarded")
}

order contains 3 if {
	to_number("defined")
	y := input.n
}

v := 1 if {
	to_number("v")
	input.n == 1
}

v := 2 if {
	input.m == 1
}

v := 3
)";

// The value (JSON), "undefined", or "line N: CODE: MESSAGE" of a strict evaluation.
std::string strict_outcome(const std::string& query, const char* input_json) {
    Engine engine;
    REQUIRE(engine.add_policy("t.rego", kPolicy).empty());
    auto q = engine.prepare(query);
    REQUIRE(q.ok());
    auto in = gavel::runtime::parse_json(input_json);
    REQUIRE(in.ok);
    EvalOptions o;
    o.input = &in.value;
    o.strict_builtin_errors = true;
    auto r = q.value->eval(o);
    if (!r.ok()) return "line " + std::to_string(r.error->line) + ": " + r.error->code + ": " + r.error->message;
    if (r.rows.empty()) return "undefined";
    return gavel::runtime::to_json(r.rows[0].expressions.at(0).value);
}

std::string to_number_error(int line, const char* arg) {
    return "line " + std::to_string(line) + ": eval_builtin_error: to_number: strconv.ParseFloat: parsing \"" + arg +
           "\": invalid syntax";
}

const char* kInput = R"({"a": "b", "pair": ["q", "c"]})";
const char* kMatching = R"({"a": "q", "pair": ["q", "b"]})";

}  // namespace

TEST_CASE("a clause whose indexed ref is undefined or differs is skipped before its body runs") {
    // `x := data.d.z` with data.d.z undefined, `input.a == "q"`, `input.pair = [x, "b"]`.
    CHECK(strict_outcome("data.p.s", kInput) == "undefined");
    CHECK(strict_outcome("data.p.t", kInput) == "undefined");
    CHECK(strict_outcome("data.p.t", kMatching) == to_number_error(9, "t"));
    CHECK(strict_outcome("data.p.h", kInput) == "undefined");
    CHECK(strict_outcome("data.p.h", kMatching) == to_number_error(37, "h"));
}

TEST_CASE("function arguments are indexed, glob.match patterns included") {
    CHECK(strict_outcome("data.p.f(2)", kInput) == "undefined");
    CHECK(strict_outcome("data.p.f(3)", kInput) == to_number_error(14, "f"));
    CHECK(strict_outcome(R"(data.p.g("b.c"))", kInput) == "undefined");
    CHECK(strict_outcome(R"(data.p.g("a.c"))", kInput) == to_number_error(32, "g"));
}

TEST_CASE("each clause of an else chain is indexed on its own") { CHECK(strict_outcome("data.p.w", kInput) == "3"); }

TEST_CASE("a clause that prints is not indexed: its body runs") {
    CHECK(strict_outcome("data.p.printing", kInput) == to_number_error(26, "printing"));
}

TEST_CASE("the clauses the index keeps decide early exit: one constant among them ends at the first success") {
    // The third clause (value 2) is skipped: input.a is not 5.
    CHECK(strict_outcome("data.p.e", kInput) == "1");
}

TEST_CASE("the first strict builtin error beats a later conflict") {
    // `not to_number("q")` records the error and holds; data.p.x then conflicts.
    CHECK(strict_outcome("data.p.q", kInput) == to_number_error(69, "q"));
    CHECK(strict_outcome("data.p.bad; data.p.x", kInput) == to_number_error(58, "bad"));
    // OPA hands data.p.x's first value on at once and finds the conflict only when it
    // comes back for the other rule: data.p.bad's error is recorded before.
    CHECK(strict_outcome("data.p.x; data.p.bad", kInput) == to_number_error(58, "bad"));
    CHECK(strict_outcome("data.p.x", kInput) ==
          "line 56: eval_conflict_error: complete rules must not produce multiple outputs");
}

TEST_CASE("a body that already succeeded hides a later body's error when every body has one value") {
    CHECK(strict_outcome("data.p.first", kInput) == "true");
}

TEST_CASE("rules run in the order OPA's index trie meets them: unguarded first, then by the refs they test") {
    const char* both = R"({"n": 1, "m": 1})";
    CHECK(strict_outcome("data.p.order", both) == to_number_error(79, "unguarded"));
    // v := 3 (unguarded), then v := 2 (no test of input.n, the first ref), which conflicts
    // before v := 1 runs into its error.
    CHECK(strict_outcome("data.p.v", both) ==
          "line 92: eval_conflict_error: complete rules must not produce multiple outputs");
}

// OPA's index takes a ref for virtual only when it reaches a node of the rule tree that holds
// rules: below a rule set's path the nodes are its rules' constant keys (numbers by their
// text). A ref past them (q[1] where only `default q[true]` is, r[2.0] where r[2] is) is read
// from the store: undefined, so the clause is skipped before its builtin error.
TEST_CASE("a ref into a partial document where the rule tree has no node is indexed as base data") {
    const char* policy = R"(package p

default q[true] := "t"

r[2] := 1

r[1][x] := 1 if { x := "a" }

v1 := x if {
	to_number("v1")
	x := q[1]
}

v2 := x if {
	to_number("v2")
	x := q[true]
}

v3 := x if {
	to_number("v3")
	x := r[2.0]
}

v4 := x if {
	to_number("v4")
	x := r[1]["b"]
}
)";
    auto outcome = [&](const char* query) {
        Engine engine;
        REQUIRE(engine.add_policy("tree.rego", policy).empty());
        auto q = engine.prepare(query);
        REQUIRE(q.ok());
        EvalOptions o;
        o.strict_builtin_errors = true;
        auto r = q.value->eval(o);
        if (!r.ok()) return r.error->code;
        return r.rows.empty() ? std::string("undefined") : gavel::runtime::to_json(r.rows[0].expressions.at(0).value);
    };
    CHECK(outcome("data.p.v1") == "undefined");
    CHECK(outcome("data.p.v2") == "eval_builtin_error");
    CHECK(outcome("data.p.v3") == "undefined");
    CHECK(outcome("data.p.v4") == "eval_builtin_error");
}
