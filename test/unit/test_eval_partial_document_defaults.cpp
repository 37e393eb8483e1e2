// Rules with a variable key (`t[x] := ...`) make their node one document: OPA evaluates the
// rules below it as that document's partial rules, so a `default` there never applies and an
// undefined deeper rule adds no empty object. Expected values are OPA 1.7.1's (`opa eval`).

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "test/unit/eval_outcome.hpp"
#include "runtime/json.hpp"

namespace {

std::string outcome(const char* policy, const char* query) {
    auto r = gavel::test::eval_of(query, {.policy = policy});
    REQUIRE(r.ok());
    return gavel::test::outcome_text(r);
}

}  // namespace

TEST_CASE("a default below rules with a variable key never applies, as in OPA") {
    const char* direct = "package p\n\ndefault t[\"a\"] := 2\n\nt[x] := 1 if { some x in [\"b\", \"c\"] }\n";
    CHECK(outcome(direct, "data.p.t") == R"({"b":1,"c":1})");
    CHECK(outcome(direct, "data.p.t.a") == "undefined");
    const char* deeper = "package p\n\ndefault t.a.b := 2\n\nt[x] := 5 if { x := \"q\" }\n";
    CHECK(outcome(deeper, "data.p") == R"({"t":{"q":5}})");
    CHECK(outcome(deeper, "data.p.t.a") == "undefined");
    // With constant keys only, the default is that key's.
    const char* constant = "package p\n\ndefault t[\"a\"] := 2\n\nt[1] := 5\n";
    CHECK(outcome(constant, "data.p.t") == R"({"1":5,"a":2})");
    CHECK(outcome(constant, "data.p.t.a") == "2");
}

TEST_CASE("below rules with a variable key, only defined values are added") {
    const char* policy = "package p\n\nt.a.b := 2 if { false }\nt.c.d := 3\nt.e := {}\n\nt[x] := 5 if { x := \"q\" }\n";
    CHECK(outcome(policy, "data.p.t") == R"({"c":{"d":3},"e":{},"q":5})");
    CHECK(outcome(policy, "data.p.t.a") == "undefined");
    // Without such rules the rule tree's node is an (empty) object.
    CHECK(outcome("package p\n\nt.a.b := 2 if { false }\n", "data.p.t") == R"({"a":{}})");
}
