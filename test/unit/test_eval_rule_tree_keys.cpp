// A ref into a rule with a known key that names no deeper rule head (`u["q"]` next to
// `u["a,b,c"]["a"] := ...`): OPA's rule tree evaluates only the rules at `u`, so an
// error in the deeper rule's body never happens. Expected outcomes are OPA 1.7.1's
// (`opa eval --strict-builtin-errors`).

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"
#include "runtime/json.hpp"

namespace {

const char* kPolicy = R"(package p

u["a,b,c"]["a"] := 1 if {
	to_number("child")
}

u[k] := 2 if k := "q"

s if u.q == 2
)";

std::string strict_outcome(const char* query) {
    auto r = gavel::test::eval_of(query, {.policy = kPolicy, .strict_builtin_errors = true});
    if (!r.ok()) return "line " + std::to_string(r.error->line) + ": " + r.error->code;
    if (r.rows.empty()) return "undefined";
    return gavel::runtime::to_json(r.rows[0].expressions.at(0).value);
}

}  // namespace

TEST_CASE("a known key that names no deeper rule head evaluates only the rules at the node") {
    CHECK(strict_outcome(R"(data.p.u["q"])") == "2");
    CHECK(strict_outcome("data.p.s") == "true");
    // The whole document, or the deeper rule's own key, evaluates the deeper rule.
    CHECK(strict_outcome("data.p.u") == "line 4: eval_builtin_error");
    CHECK(strict_outcome(R"(data.p.u["a,b,c"])") == "line 4: eval_builtin_error");
}
