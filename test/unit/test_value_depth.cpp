// runtime::deeper_than: nesting measured without recursion, keys included.
#include <doctest/doctest.h>

#include "runtime/json.hpp"
#include "runtime/value_depth.hpp"

using gavel::runtime::deeper_than;
using gavel::runtime::Value;

namespace {

Value parse(std::string_view text) {
    auto r = gavel::runtime::parse_json(text);
    REQUIRE_MESSAGE(r.ok, text);
    return r.value;
}

}  // namespace

TEST_CASE("value depth: scalars have none, each array, object or set one level") {
    CHECK_FALSE(deeper_than(parse("7"), 0));
    CHECK(deeper_than(parse("[]"), 0));
    CHECK_FALSE(deeper_than(parse("[]"), 1));
    CHECK(deeper_than(parse(R"({"a":[1,{"b":2}]})"), 2));
    CHECK_FALSE(deeper_than(parse(R"({"a":[1,{"b":2}]})"), 3));
    CHECK(deeper_than(Value::set({Value::array({Value::array({})})}), 2));
    // The deepest branch counts, wherever it is.
    CHECK(deeper_than(parse(R"([1,2,[3],{"a":{"b":[[[]]]}},4])"), 5));
    CHECK_FALSE(deeper_than(parse(R"([1,2,[3],{"a":{"b":[[[]]]}},4])"), 6));
}

TEST_CASE("value depth: object keys that are collections count") {
    Value key = Value::array({Value::array({})});
    Value object = Value::object({{key, Value::integer(1)}});
    CHECK(deeper_than(object, 2));
    CHECK_FALSE(deeper_than(object, 3));
}

TEST_CASE("value depth: a value far deeper than any stack allows is measured") {
    Value v = Value::array({});
    for (int i = 1; i < 300000; ++i) v = Value::array({v});
    CHECK(deeper_than(v, 299999));
    CHECK_FALSE(deeper_than(v, 300000));
    // Freeing it would recurse through 300,000 levels: unwind it level by level.
    while (!v.array_elements().empty()) {
        Value inner = v.array_elements()[0];
        v = inner;
    }
}
