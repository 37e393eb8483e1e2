#pragma once
// The plugins' polling delays as OPA's util package and plugin loops compute them: the
// bundle downloader and the decision-log uploader wait the same way.

#include <chrono>

namespace gavel::webhook::plugins {

// OPA's util.DefaultBackoff(base, max, retries): base grown by 1.6 per retry up to max,
// then a jitter of +/-20%; zero retries is no wait.
std::chrono::nanoseconds default_backoff(double base_ns, double max_ns, int retries);

// After a success: uniform in [min, max) seconds (OPA's rand.Int63n(max-min) + min).
std::chrono::nanoseconds random_delay(double min_seconds, double max_seconds);

}  // namespace gavel::webhook::plugins
