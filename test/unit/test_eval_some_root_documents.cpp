// `some input in xs` and `some data in xs`: `input` and `data` are the documents, not new
// variables (OPA's parser makes them refs), so the declaration tests membership. Expected
// values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include "test/unit/eval_outcome.hpp"

using gavel::test::outcome_of;

TEST_CASE("some input in xs: is the input one of xs") {
    const char* policy = R"(package p

member if { some input in [1, 2] }

keys := [k | some k, input in [3, 1, 1]]

values := [input | some input in [1, 2]]
)";
    CHECK(outcome_of("data.p.member", {policy, nullptr, "1"}) == "true");
    CHECK(outcome_of("data.p.member", {policy, nullptr, "3"}) == "undefined");
    CHECK(outcome_of("data.p.keys", {policy, nullptr, "1"}) == "[1,2]");
    CHECK(outcome_of("data.p.values", {policy, nullptr, "3"}) == "[]");
}

TEST_CASE("some data in xs reads the whole data document: a rule doing so is recursive") {
    gavel::Engine engine;
    auto d = engine.add_policy("test.rego", "package p\n\nbad if { some data in [1] }\n\nok := 1\n");
    if (d.empty()) {
        auto q = engine.prepare("data.p.ok");
        REQUIRE_FALSE(q.ok());
        d = q.diagnostics;
    }
    REQUIRE_FALSE(d.empty());
    CHECK(d.items()[0].code == "rego_recursion_error");
}
