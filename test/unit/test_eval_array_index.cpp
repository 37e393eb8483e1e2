// Array lookups as OPA does them: an index is a number written as an integer (`a[1.0]` is
// undefined, as Go's json.Number.Int64 reads "1.0"), while base data, which OPA's store
// reads by path strings, takes a string that strconv.Atoi reads (`data.a["1"]`, "+1").
// Expected values are OPA 1.7.1's.

#include <doctest/doctest.h>

#include <string>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "test/unit/eval_outcome.hpp"

namespace {

std::string outcome(const char* query) {
    return gavel::test::outcome_of(
        query, gavel::test::Setup{.data = R"({"d": {"list": [1.0, -1.0]}})", .input = R"({"b": [{}, []]})"});
}

}  // namespace

TEST_CASE("an array index is a number written as an integer") {
    CHECK(outcome("input.b[1]") == "[]");
    CHECK(outcome("input.b[1.0]") == "undefined");
    CHECK(outcome("y := 1e0; input.b[y]") == "undefined");
    CHECK(outcome(R"(input.b["1"])") == "undefined");
}

TEST_CASE("base data arrays are read by path strings") {
    CHECK(outcome(R"(data.d.list["1"])") == "-1.0");
    CHECK(outcome(R"(data.d.list["+1"])") == "-1.0");
    CHECK(outcome("data.d.list[1.0]") == "undefined");
    CHECK(outcome(R"(data.d.list["1.0"])") == "undefined");
    // A value taken out of data is a value: no path strings there.
    CHECK(outcome(R"(y := data.d.list; y["1"])") == "undefined");
}
