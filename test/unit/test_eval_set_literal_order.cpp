// OPA's compiler rewrites a set literal's elements in its term order, not as
// written: the refs and calls it hoists out of `{f(input.s), f(input.b)}` run
// input.b's first, which decides the first strict builtin error. Expected
// outcomes are OPA 1.7.1's (`opa eval --strict-builtin-errors`).

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"

namespace {

std::string strict_error(const char* query) {
    gavel::Engine engine;
    auto q = engine.prepare(query);
    REQUIRE(q.ok());
    auto input = gavel::runtime::parse_json(R"({"s": "x", "b": "y"})");
    gavel::EvalOptions o;
    o.input = &input.value;
    o.strict_builtin_errors = true;
    auto r = q.value->eval(o);
    REQUIRE_FALSE(r.ok());
    return r.error->message;
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
