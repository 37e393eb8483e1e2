// gavel eval --profile/--count: OPA's statistics (go-metrics' percentiles) and Go's number texts.
#include <doctest/doctest.h>

#include <map>

#include "cli/eval_profile.hpp"

using namespace gavel::cli;

namespace {
std::map<std::string, std::string> as_map(const std::vector<std::pair<std::string, std::string>>& v) {
    return {v.begin(), v.end()};
}
}  // namespace

TEST_CASE("statistics: go-metrics percentiles, mean and population stddev, keys in encoding/json's order") {
    auto stats = statistics({4, 1, 3, 2});
    std::vector<std::string> keys;
    for (const auto& [k, v] : stats) keys.push_back(k);
    CHECK(keys == std::vector<std::string>{"75%", "90%", "95%", "99%", "99.9%", "99.99%", "count", "max", "mean",
                                           "median", "min", "stddev"});
    auto m = as_map(stats);
    CHECK(m["median"] == "2.5");  // pos 2.5: between the 2nd and 3rd value
    CHECK(m["75%"] == "3.75");    // pos 3.75
    CHECK(m["90%"] == "4");       // pos 4.5 is past the end: the largest
    CHECK(m["count"] == "4");
    CHECK(m["min"] == "1");
    CHECK(m["max"] == "4");
    CHECK(m["mean"] == "2.5");
    CHECK(m["stddev"] == "1.118033988749895");
    CHECK(statistics({}).empty());
    CHECK(as_map(statistics({7}))["99.99%"] == "7");
}

TEST_CASE("go_number_text: %v of a float64 is %g with the shortest digits") {
    CHECK(go_number_text("1234567", true) == "1.234567e+06");
    CHECK(go_number_text("123456.5", true) == "123456.5");
    CHECK(go_number_text("0.0001", true) == "0.0001");
    CHECK(go_number_text("0.00001", true) == "1e-05");
    CHECK(go_number_text("1234567", false) == "1234567");
    CHECK(statistic_is_float("mean"));
    CHECK_FALSE(statistic_is_float("count"));
}

TEST_CASE("profile_sort_order: the given criteria, then OPA's default ones not named") {
    CHECK(profile_sort_order({"num_eval"}) ==
          std::vector<std::string>{"num_eval", "total_time_ns", "num_redo", "file", "line"});
    CHECK(profile_sort_order({}) == default_profile_sort());
}
