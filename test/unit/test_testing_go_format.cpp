// Go's formats in `gavel test` output: time.Duration.String() and the
// testing.BenchmarkResult lines (cli/test_runner/go_format.cpp).

#include <doctest/doctest.h>

#include "cli/test_runner/go_format.hpp"

using gavel::cli::test_runner::BenchmarkResult;
using gavel::cli::test_runner::go_benchmark_line;
using gavel::cli::test_runner::go_benchmark_mem;
using gavel::cli::test_runner::go_duration;
using namespace std::chrono_literals;

TEST_CASE("durations print as Go's time.Duration.String()") {
    CHECK(go_duration(0ns) == "0s");
    CHECK(go_duration(1ns) == "1ns");
    CHECK(go_duration(999ns) == "999ns");
    CHECK(go_duration(1000ns) == "1\xC2\xB5s");
    CHECK(go_duration(1500ns) == "1.5\xC2\xB5s");
    CHECK(go_duration(45759ns) == "45.759\xC2\xB5s");
    CHECK(go_duration(1234567ns) == "1.234567ms");
    CHECK(go_duration(50665175ns) == "50.665175ms");
    CHECK(go_duration(1s) == "1s");
    CHECK(go_duration(1500ms) == "1.5s");
    CHECK(go_duration(61s) == "1m1s");
    CHECK(go_duration(3600s) == "1h0m0s");
    CHECK(go_duration(3723500ms) == "1h2m3.5s");
    CHECK(go_duration(-1500ns) == "-1.5\xC2\xB5s");
}

TEST_CASE("benchmark lines as testing.BenchmarkResult prints them") {
    BenchmarkResult r;
    r.n = 38737;
    r.total_ns = 38737ULL * 1557;
    r.allocs = 38737ULL * 17;
    r.bytes = 38737ULL * 782;
    CHECK(go_benchmark_line(r) == "   38737\t      1557 ns/op");
    CHECK(go_benchmark_mem(r) == "     782 B/op\t      17 allocs/op");
    r.n = 2000;
    r.total_ns = 123000;  // 61.5 ns/op: two decimals below 100
    CHECK(go_benchmark_line(r) == "    2000\t        61.50 ns/op");
    r.total_ns = 250000;  // 125 ns/op: one decimal below 1000
    CHECK(go_benchmark_line(r) == "    2000\t       125.0 ns/op");
    r.eval_ns = 246000;  // OPA's extra metric, per op
    CHECK(go_benchmark_line(r) == "    2000\t       125.0 ns/op\t       123.0 timer_rego_query_eval_ns/op");
}

TEST_CASE("gobench names: data.foo.bar.test_baz is BenchmarkDataFooBarTestBaz") {
    CHECK(gavel::cli::test_runner::go_benchmark_name("data.foo.bar.test_baz") == "BenchmarkDataFooBarTestBaz");
    CHECK(gavel::cli::test_runner::go_benchmark_name("data.roles.test_mocked_data") ==
          "BenchmarkDataRolesTestMockedData");
}
