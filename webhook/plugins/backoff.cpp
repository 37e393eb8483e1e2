#include "webhook/plugins/backoff.hpp"

#include <algorithm>
#include <cstdint>
#include <random>

namespace gavel::webhook::plugins {

namespace {

double random_unit() {
    thread_local std::mt19937_64 rng{std::random_device{}()};
    return std::uniform_real_distribution<double>(0, 1)(rng);
}

}  // namespace

std::chrono::nanoseconds default_backoff(double base_ns, double max_ns, int retries) {
    if (retries == 0) return std::chrono::nanoseconds(0);
    double backoff = base_ns;
    while (backoff < max_ns && retries > 0) {
        backoff *= 1.6;
        --retries;
    }
    if (backoff > max_ns) backoff = max_ns;
    backoff *= 1 + 0.2 * (random_unit() * 2 - 1);
    return std::chrono::nanoseconds(static_cast<std::int64_t>(std::max(0.0, backoff)));
}

std::chrono::nanoseconds random_delay(double min_seconds, double max_seconds) {
    double min = min_seconds * 1e9, max = max_seconds * 1e9;
    return std::chrono::nanoseconds(static_cast<std::int64_t>((max - min) * random_unit() + min));
}

}  // namespace gavel::webhook::plugins
