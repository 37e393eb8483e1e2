// A complete rule whose definitions produce equal values written differently (2.0 and 2) has
// the first value OPA's evaluation finds (evalVirtualComplete keeps it; an equal later one is
// no conflict). Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

const char* kPolicy = R"(package p

allow := 2.0
allow = 1 if {
	false
} else := x if {
	some x in [2]
}
)";

std::string outcome(const char* query) { return gavel::test::outcome_of(query, gavel::test::Setup{.policy = kPolicy}); }

}  // namespace

TEST_CASE("equal values of a complete rule: the first one found is its value") {
    CHECK(outcome("data.p") == R"({"allow":2.0})");
    CHECK(outcome("data.p.allow") == "2.0");
}
