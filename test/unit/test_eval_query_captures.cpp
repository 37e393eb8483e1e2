// A query's captured values are tested after its last expression, where OPA's rego package
// appends those tests (rewriteQueryToCaptureValue): a false comparison does not stop the
// expressions after it, so their builtin errors (strict mode) and prints still happen.
// Expected outcomes are OPA 1.7.1's (`opa eval --strict-builtin-errors`).

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

std::string strict_outcome(const char* query) {
    return gavel::test::outcome_of(query, {.strict_builtin_errors = true});
}

}  // namespace

TEST_CASE("a false comparison in a query does not stop the expressions after it") {
    CHECK(strict_outcome(R"(1 == 2; x := to_number("a"))") == "eval_builtin_error");
    CHECK(strict_outcome(R"(x := 1; x == 2; y := to_number("a"))") == "eval_builtin_error");
    // The tests still decide: a false one makes the query undefined, a lone one is its value.
    CHECK(strict_outcome(R"(1 == 2; x := to_number("1"))") == "undefined");
    CHECK(strict_outcome("1 == 2") == "false");
}
