// ScratchArray: an array that borrows its elements for one call and keeps its
// node for the next; one the callee kept gets counted elements.

#include "runtime/scratch_array.hpp"

#include <doctest/doctest.h>

#include <vector>

using namespace gavel::runtime;

TEST_CASE("scratch array: the node is reused by the next call when nobody kept it") {
    ScratchArray scratch;
    std::vector<Value> first = {Value::string("alpha-long-enough-for-the-heap"), Value::integer(1)};
    const Value& a = scratch.make(first);
    CHECK(scratch.busy());
    CHECK(a == Value::array({Value::string("alpha-long-enough-for-the-heap"), Value::integer(1)}));
    const void* node = a.node();
    scratch.finish();
    CHECK_FALSE(scratch.busy());
    std::vector<Value> second = {Value::string("beta")};
    const Value& b = scratch.make(second);
    CHECK(b.node() == node);
    CHECK(b.size() == 1);
    CHECK(b == Value::array({Value::string("beta")}));
    scratch.finish();
    // Empty: the empty array, no node.
    CHECK(scratch.make({}).size() == 0);
    scratch.finish();
}

TEST_CASE("scratch array: an array the callee kept owns its elements") {
    ScratchArray scratch;
    Value kept;
    {
        // Elements only these locals hold: the kept array must count them,
        // or they are freed with the locals (ASan reports the reads below).
        std::vector<Value> items = {Value::string(std::string(40, 'x')),
                                    Value::array({Value::string(std::string(40, 'y'))})};
        const Value& a = scratch.make(items);
        kept = a;  // what a builtin returning its argument does
        scratch.finish();
    }
    REQUIRE(kept.size() == 2);
    CHECK(kept.array_elements()[0].as_string() == std::string(40, 'x'));
    CHECK(kept.array_elements()[1].array_elements()[0].as_string() == std::string(40, 'y'));
    // The scratch makes a fresh node next time: the kept one is not overwritten.
    std::vector<Value> next = {Value::integer(7)};
    const Value& c = scratch.make(next);
    CHECK(c.node() != kept.node());
    scratch.finish();
    CHECK(kept.array_elements()[0].as_string() == std::string(40, 'x'));
}
