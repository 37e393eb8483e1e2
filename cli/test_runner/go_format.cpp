#include "cli/test_runner/go_format.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

namespace gavel::cli::test_runner {

namespace {

// "<whole>.<fraction>" with the fraction's trailing zeros (and a bare dot) removed.
std::string with_fraction(uint64_t value, uint64_t unit, int digits) {
    std::string out = std::to_string(value / unit);
    uint64_t rest = value % unit;
    if (rest == 0) return out;
    std::string frac = fmt::format("{:0{}}", rest, digits);
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return out + "." + frac;
}

}  // namespace

std::string go_duration(std::chrono::nanoseconds d) {
    long long ns = d.count();
    if (ns == 0) return "0s";
    std::string sign = ns < 0 ? "-" : "";
    uint64_t u = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
    if (u < 1000) return sign + std::to_string(u) + "ns";
    if (u < 1000000) return sign + with_fraction(u, 1000, 3) + "\xC2\xB5s";  // µs, as Go writes it
    if (u < 1000000000) return sign + with_fraction(u, 1000000, 6) + "ms";
    uint64_t hours = u / 3600000000000ULL;
    u %= 3600000000000ULL;
    uint64_t minutes = u / 60000000000ULL;
    u %= 60000000000ULL;
    std::string out = sign;
    if (hours) out += std::to_string(hours) + "h";
    if (hours || minutes) out += std::to_string(minutes) + "m";
    return out + with_fraction(u, 1000000000, 9) + "s";
}

// testing.prettyPrint: fewer decimals the larger the number.
std::string pretty_metric(double x, std::string_view unit) {
    double y = std::fabs(x);
    if (y == 0 || y >= 999.95) return fmt::format("{:10.0f} {}", x, unit);
    if (y >= 99.995) return fmt::format("{:12.1f} {}", x, unit);
    if (y >= 9.9995) return fmt::format("{:13.2f} {}", x, unit);
    if (y >= 0.99995) return fmt::format("{:14.3f} {}", x, unit);
    return fmt::format("{:15.4f} {}", x, unit);
}

std::string go_benchmark_line(const BenchmarkResult& r) {
    std::string out = fmt::format("{:8}", r.n);
    double ns = r.n ? static_cast<double>(r.total_ns) / static_cast<double>(r.n) : 0;
    if (ns != 0) out += '\t' + pretty_metric(ns, "ns/op");
    if (r.eval_ns && r.n)
        out += '\t' +
               pretty_metric(static_cast<double>(r.eval_ns) / static_cast<double>(r.n), "timer_rego_query_eval_ns/op");
    return out;
}

std::string go_benchmark_name(const std::string& test) {
    std::string out = "Benchmark";
    bool upper = true;
    for (char c : test) {
        if (c == '.' || c == '_') {
            upper = true;
            continue;
        }
        out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
        upper = false;
    }
    return out;
}

std::string go_benchmark_mem(const BenchmarkResult& r) {
    uint64_t bytes = r.n ? r.bytes / r.n : 0;
    uint64_t allocs = r.n ? r.allocs / r.n : 0;
    return fmt::format("{:8} B/op\t{:8} allocs/op", bytes, allocs);
}

}  // namespace gavel::cli::test_runner
