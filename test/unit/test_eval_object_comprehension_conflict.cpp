// An object comprehension giving one key two values is a conflict as soon as the second value
// arrives (OPA inserts as it goes): under strict builtin errors it comes before a builtin error
// of a later solution. Expected outcomes are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

std::string strict(const char* query) {
    return gavel::test::value_or_error_text(gavel::test::eval_of(query, {.strict_builtin_errors = true}));
}

}  // namespace

TEST_CASE("object comprehension: a key's second value is a conflict before a later solution's builtin error") {
    CHECK(strict(R"(x := {k: (10 / y) | some y in [1, 2, 0]; k := "a"})") ==
          "eval_conflict_error: object keys must be unique");
    // The error comes first when it comes first.
    CHECK(strict(R"(x := {k: (10 / y) | some y in [0, 1, 2]; k := "a"})") == "eval_builtin_error: div: divide by zero");
    // Equal values for one key are no conflict.
    CHECK(strict(R"(x := {k: 1 | some y in [1, 2]; k := "a"})") == "true");
}
