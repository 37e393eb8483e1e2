#include "cli/test_runner/go_format.hpp"

#include <fmt/format.h>

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

std::string go_benchmark_line(const BenchmarkResult& r) {
    std::string out = fmt::format("{:8}", r.n);
    double ns = r.n ? static_cast<double>(r.total_ns) / static_cast<double>(r.n) : 0;
    if (ns != 0) {
        // testing.prettyPrint: fewer decimals the larger the number.
        double y = std::fabs(ns);
        if (y >= 999.95) out += fmt::format("\t{:10.0f} ns/op", ns);
        else if (y >= 99.995) out += fmt::format("\t{:12.1f} ns/op", ns);
        else if (y >= 9.9995) out += fmt::format("\t{:13.2f} ns/op", ns);
        else if (y >= 0.99995) out += fmt::format("\t{:14.3f} ns/op", ns);
        else out += fmt::format("\t{:15.4f} ns/op", ns);
    }
    return out;
}

std::string go_benchmark_mem(const BenchmarkResult& r) {
    uint64_t bytes = r.n ? r.bytes / r.n : 0;
    uint64_t allocs = r.n ? r.allocs / r.n : 0;
    return fmt::format("{:8} B/op\t{:8} allocs/op", bytes, allocs);
}

}  // namespace gavel::cli::test_runner
