// OPA's compiler rewrites a set literal's elements in its term order, not as
// written: the refs and calls it hoists out of `{f(input.s), f(input.b)}` run
// input.b's first, which decides the first strict builtin error. And OPA iterates
// a set literal that is no constant term by term, in that order (the hoisted
// variables' by name), without merging equal values; the set as a value is a set.
// Expected outcomes are OPA 1.7.1's (`opa eval`, `--strict-builtin-errors`).

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"
#include "runtime/json.hpp"

namespace {

std::string strict_error(const char* query) {
    auto r = gavel::test::eval_of(query, {.input = R"({"s": "x", "b": "y"})", .strict_builtin_errors = true});
    REQUIRE_FALSE(r.ok());
    return r.error->message;
}

std::string value_of(const std::string& query, const char* policy = nullptr) {
    return gavel::test::value_or_error_text(
        gavel::test::eval_of(query, {.policy = policy, .input = R"({"c": null, "s": null, "a": 2, "b": 1, "d": 5})"}));
}

}  // namespace

TEST_CASE("the calls of a set literal run in the set's term order") {
    const std::string from_b = "to_number: strconv.ParseFloat: parsing \"y\": invalid syntax";
    CHECK(strict_error("x := {to_number(input.s), to_number(input.b)}") == from_b);
    CHECK(strict_error("x := {to_number(input.b), to_number(input.s)}") == from_b);
    CHECK(strict_error("some y in {to_number(input.s), to_number(input.b)}") == from_b);
    // An array keeps the order written.
    CHECK(strict_error("x := [to_number(input.s), to_number(input.b)]") ==
          "to_number: strconv.ParseFloat: parsing \"x\": invalid syntax");
}

TEST_CASE("the calls of an object literal run in the order of its keys") {
    // OPA rewrites an object's items by key (object.Map): 0.1's, then 1's, then "a"'s.
    const std::string from_b = "to_number: strconv.ParseFloat: parsing \"y\": invalid syntax";
    CHECK(strict_error(R"(x := {"b": to_number(input.s), "a": to_number(input.b)})") == from_b);
    CHECK(strict_error(R"(x := {"a": to_number(input.b), "b": to_number(input.s)})") == from_b);
    CHECK(strict_error(R"(x := {"a": format_int(10, 1.5), 1: to_number(input.b)})") == from_b);
}

TEST_CASE("a set literal is iterated term by term, in its term order") {
    // Equal values are not merged; constants sort before the variables refs became.
    CHECK(value_of(R"([x | some x in {"a", input.c, input.s}])") == R"(["a",null,null])");
    CHECK(value_of("[x | some x in {input.c, input.s}]") == "[null,null]");
    CHECK(value_of("[x | some k, x in {input.c, input.s}]") == "[null,null]");
    CHECK(value_of("[x | x := {input.c, input.s}[_]]") == "[null,null]");
    CHECK(value_of("[x | {input.c, input.s}[x]]") == "[null,null]");
    // The order of the terms, not of their values: input.a's variable sorts first...
    CHECK(value_of("[x | some x in {input.b, input.a}]") == "[2,1]");
    // ...unless its name sorts after the other's (__local9__ after __local10__).
    const char* policy = R"(package p
z := [x | y1 := [w | w := input.a[_]]; y2 := [w | w := input.a[_]]; some x in {input.b, input.d}]
)";
    CHECK(value_of("data.p.z", policy) == "[5,1]");
    // In a query, as OPA names them: each of its compiler's stages counts __localqN__ from 0
    // past the names in use, so the refs here become __localq9__ and __localq10__.
    CHECK(value_of("[x | y1 := [w | w := input.a[_]]; y2 := [w | w := input.a[_]]; y3 := [w | w := input.a[_]]; "
                   "some x in {input.a, input.b}]") == "[1,2]");
    // An undefined term: nothing to iterate.
    CHECK(value_of("[x | some x in {input.c, input.none}]") == "[]");
    // Bound to a variable where it first occurs, and iterated there or in a closure.
    CHECK(value_of("[x | s := {input.c, input.s}; some x in s]") == "[null,null]");
    CHECK(value_of("[x | s = {input.c, input.s}; some x in s]") == "[null,null]");
    CHECK(value_of("[y | s := {input.c, input.s}; y := [x | some x in s]]") == "[[null,null]]");
    CHECK(value_of("[x | s := {input.c, input.s}; s[x]]") == "[null,null]");
    CHECK(value_of("[x | s := {input.c, input.s}; x := null; s[x]]") == "[null]");
    // Everywhere else the literal is a set.
    CHECK(value_of("[x | s := {input.c, input.s}; x := count(s)]") == "[1]");
    CHECK(value_of("count({input.c, input.s})") == "1");
    CHECK(value_of("{input.c, input.s}") == "[null]");
    CHECK(value_of("{input.c, input.s} == {null}") == "true");
}

TEST_CASE("a set literal's terms that name one document once resolved are one term (OPA's Set.Map)") {
    const char* policy = R"(package p

import input.s as sv

w := ""

m := [x | some x in {sv, input.s, w}]

n := [x | some x in {w, data.p.w, input.c}]
)";
    CHECK(value_of("data.p.m", policy) == R"(["",null])");
    CHECK(value_of("data.p.n", policy) == R"(["",null])");
}
