#pragma once
// Go's text formats that `opa test` output is made of: time.Duration.String()
// ("1.234ms", "512ns", "1m2.5s") and testing.BenchmarkResult's lines
// ("    2000\t     61.50 ns/op", "       0 B/op\t       0 allocs/op").

#include <chrono>
#include <cstdint>
#include <string>

namespace gavel::cli::test_runner {

std::string go_duration(std::chrono::nanoseconds d);

struct BenchmarkResult {
    uint64_t n = 0;         // iterations
    uint64_t total_ns = 0;  // wall time of all iterations
    uint64_t allocs = 0;    // allocations of all iterations
    uint64_t bytes = 0;     // bytes allocated by all iterations
    uint64_t eval_ns = 0;   // timer_rego_query_eval_ns of all iterations (OPA reports it per op)
};

// BenchmarkResult.String(): "%8d\t<ns/op>", then OPA's extra metric
// "<timer_rego_query_eval_ns/op>" when it was measured.
std::string go_benchmark_line(const BenchmarkResult& r);
// The Go Benchmark Data Format name of a test: data.foo.bar.test_baz -> BenchmarkDataFooBarTestBaz.
std::string go_benchmark_name(const std::string& test);
// BenchmarkResult.MemString(): "%8d B/op\t%8d allocs/op".
std::string go_benchmark_mem(const BenchmarkResult& r);

}  // namespace gavel::cli::test_runner
