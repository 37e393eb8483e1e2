// The function cache keys the containers a quiet function is called with by identity
// (function_cache.hpp): the same node hits, an equal copy misses and runs the body
// again, which a quiet function cannot show. A function that prints keeps OPA's keys by
// value: called twice with equal objects built apart, it prints once (OPA 1.7.1).

#include <doctest/doctest.h>

#include <string>

#include "runtime/eval/function_cache.hpp"
#include "runtime/eval/plan.hpp"
#include "runtime/json.hpp"
#include "test/unit/eval_outcome.hpp"

using gavel::eval::FunctionCache;
using gavel::runtime::Value;

namespace {

Value json(const char* text) { return gavel::runtime::parse_json(text).value; }

}  // namespace

TEST_CASE("function cache: containers by identity for a quiet function, by value otherwise") {
    gavel::eval::RuleSet fn;
    const Value object = json(R"({"image": "a", "ports": [1, 2]})");
    const Value copy = json(R"({"image": "a", "ports": [1, 2]})");
    REQUIRE(object == copy);
    REQUIRE_FALSE(object.identical(copy));
    const Value text = Value::string("cpu");
    for (bool by_identity : {true, false}) {
        FunctionCache cache;
        const Value args[] = {object, text};
        cache.put(fn, args, FunctionCache::key_hash(fn, args, by_identity), by_identity, Value::integer(7));
        const Value same_node[] = {object, Value::string("cpu")};  // an equal string is a hit either way
        const auto* hit = cache.find(fn, same_node, FunctionCache::key_hash(fn, same_node, by_identity), by_identity);
        REQUIRE(hit != nullptr);
        CHECK(**hit == Value::integer(7));
        const Value equal_copy[] = {copy, text};
        const auto* found =
            cache.find(fn, equal_copy, FunctionCache::key_hash(fn, equal_copy, by_identity), by_identity);
        CHECK((found != nullptr) == !by_identity);
    }
}

TEST_CASE("function cache: a function that prints is keyed by value, as in OPA") {
    const char* policy = R"(package f

f(x) := x.a if {
	print("f", x.a)
	true
}

p := [f({"a": input.n}), f({"a": input.n}), g({"a": input.n}), g({"a": input.n})]

g(x) := x.a + 1
)";
    std::string printed;
    CHECK(gavel::test::outcome_text(gavel::test::eval_of("data.f.p", {policy, nullptr, R"({"n": 5})"}, &printed)) ==
          "[5,5,6,6]");
    CHECK(printed == "f 5\n");
}

TEST_CASE("function cache: an answer taken from the cache stays valid while later calls add entries") {
    // The first f(...) answer is borrowed by the array under construction while the g(...)
    // calls after it add cache entries (which once moved the entries, and the answer with them).
    std::string policy =
        "package h\n\nf(x) := x.a if {\n\tprint(x.a)\n}\n\ng(x) := x + 1\n\np := [f({\"a\": input.n}), f({\"a\": "
        "input.n})";
    for (int i = 0; i < 100; ++i) policy += ", g(" + std::to_string(i) + ")";
    policy += "]\n";
    std::string printed;
    CHECK(gavel::test::outcome_text(
              gavel::test::eval_of("data.h.p[1]", {policy.c_str(), nullptr, R"({"n": 1})"}, &printed)) == "1");
}
