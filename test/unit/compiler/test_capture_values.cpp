// Query stage capture_values: each expression's value kept in $termN, as OPA's rego package does.

#include <doctest/doctest.h>

#include "test/unit/compiler/compile_helpers.hpp"

using gavel::test::query_of;

namespace {

gavel::compiler::QueryContext capturing() {
    gavel::compiler::QueryContext context;
    context.capture_values = true;
    return context;
}

}  // namespace

TEST_CASE("capture_values: a single expression keeps its value, false included (`$termN` prints as termN here)") {
    CHECK(query_of("data.q.allow", {"package q\ndefault allow := false\n"}, capturing()) == "data.q.allow = term1");
    CHECK(query_of("1 == 2", {}, capturing()) == "equal(1, 2, term1)");
    CHECK(query_of("false", {}, capturing()) == "false = term1");
}

TEST_CASE("capture_values: with more than one expression each captured value must also be true") {
    CHECK(query_of("input.x; 1 == 1", {}, capturing()) == "input.x = term1; equal(1, 1, term2); term1; term2");
}

TEST_CASE("capture_values: assignments, unifications and negations are not captured; without the option nothing is") {
    CHECK(query_of("x := 1", {}, capturing()).find("$term") == std::string::npos);
    CHECK(query_of("not input.x", {}, capturing()).find("$term") == std::string::npos);
    CHECK(query_of("1 == 2").find("$term") == std::string::npos);
}
