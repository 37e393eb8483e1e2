#pragma once
// Prometheus' text exposition format (0.0.4) as Go's client library writes it,
// so that OPA's families read the same from gavel: numbers in Go's shortest
// %g form ("1e-06", "0.0005", "1.024e+06", "+Inf"), label values escaped,
// histograms with cumulative buckets, the +Inf bucket, _sum and _count.
// Also the bucket lists OPA's configuration sets (server.metrics.prom ...,
// status.prometheus_config ...), checked as client_golang checks them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::webhook {

// A sample value or an `le` bound as client_golang writes it (strconv 'g', shortest).
std::string prometheus_number(double v);

// A label value with \, " and newline escaped (the quotes are the caller's).
std::string prometheus_label_value(std::string_view v);

// Prometheus' default buckets (client_golang's DefBuckets): what an empty list means.
const std::vector<double>& prometheus_default_buckets();

// One histogram series over a list of upper bounds (the +Inf bucket is implicit).
struct HistogramSeries {
    explicit HistogramSeries(std::size_t bounds) : buckets(bounds, 0) {}
    std::vector<std::uint64_t> buckets;  // per bound, not cumulative
    std::uint64_t count = 0;
    double sum = 0;
    // The first bucket whose bound is >= v, as client_golang's.
    void observe(const std::vector<double>& bounds, double v);
};

// The series' lines: name_bucket{labels,le="..."} (cumulative), name_sum, name_count.
// `labels` is `k="v",...` (escaped) or empty.
void render_histogram(std::string& out, std::string_view name, std::string_view labels,
                      const std::vector<double>& bounds, const HistogramSeries& series);

// "# HELP name help\n# TYPE name type\n".
void render_family_header(std::string& out, std::string_view name, std::string_view type, std::string_view help);

// A bucket list from a configuration value: a list of numbers, strictly increasing (a
// trailing +Inf dropped, an empty list meaning Prometheus' defaults). False with a message
// otherwise; OPA panics on every request with such buckets, gavel refuses them at start.
bool histogram_bounds(const runtime::Value& list, std::string_view where, std::vector<double>& out, std::string& error);

}  // namespace gavel::webhook
