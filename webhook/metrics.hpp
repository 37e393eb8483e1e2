#pragma once
// Server metrics in Prometheus' text exposition format:
//   gavel_http_requests_total{endpoint,decision,code}
//   gavel_http_request_duration_seconds{endpoint} (histogram, buckets from 50 µs)
//   gavel_reloads_total{status}, gavel_last_reload_timestamp_seconds{status}
//   gavel_config_info{hash}, gavel_http_requests_in_flight, gavel_ready
//   gavel_connections{listener,address}, gavel_connections_refused_total{listener,address},
//   gavel_connections_evicted_total{listener,address} (each listener's connections)
// and, named as the dashboards for OPA and Kubernetes expect them:
//   http_request_duration_seconds{code,handler,method}, http_request_cancellations{code,handler,method}
//     (OPA's: its names, help texts, label values, buckets and number format)
//   process_* (Prometheus' standard process metrics, process_metrics.hpp)
//   gavel_build_info{version,revision}
//   gavel_config_controller_automatic_reloads_total{status},
//   gavel_config_controller_automatic_reload_last_timestamp_seconds{status},
//   gavel_config_controller_last_config_info{hash} (KEP-5793's reload metrics)

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "webhook/prometheus_text.hpp"

namespace gavel::webhook {

class Metrics {
public:
    static constexpr double kBuckets[] = {0.00005, 0.0001, 0.00025, 0.0005, 0.00075, 0.001, 0.0025, 0.005, 0.01,
                                          0.025,   0.05,   0.1,     0.25,   0.5,     1,     2.5,    5,     10};
    static constexpr std::size_t kBucketCount = sizeof(kBuckets) / sizeof(kBuckets[0]);

    // gavel's own request families. decision: "allowed", "denied", "error" for admission; "" otherwise.
    void record_request(std::string_view endpoint, std::string_view decision, int code,
                        std::chrono::nanoseconds latency);
    // OPA's instrumentation of one handler (`handler`: OPA's label, "v1/data", "authz" ...):
    // http_request_duration_seconds with the code and method as client_golang labels them
    // ("200", "get"; "unknown" for a method it does not know), and http_request_cancellations
    // (code and method as sent) when the request was cancelled before its answer.
    void record_opa_request(std::string_view handler, int code, std::string_view method,
                            std::chrono::nanoseconds latency, bool cancelled = false);
    // The upper bounds of http_request_duration_seconds (OPA's server.metrics.prom.
    // http_request_duration_seconds.buckets); set before serving. Default: OPA's, 1e-6 .. 1.
    void set_opa_buckets(std::vector<double> bounds);
    static const std::vector<double>& opa_default_buckets();

    // A listener's connection counters, read at each scrape (webhook::Server's).
    struct ListenerCounts {
        std::uint64_t open = 0, refused = 0, evicted = 0;
    };
    void add_listener(std::string name, std::string address, std::function<ListenerCounts()> counts);
    // Families rendered by their owner (a plugin's), appended at each scrape.
    void add_collector(std::function<void(std::string& out)> render);

    void set_build_info(std::string version, std::string revision);
    void record_reload(bool ok);
    void request_started() { ++in_flight_; }
    void request_finished() { --in_flight_; }

    std::string render(bool ready, const std::string& config_hash) const;

    // Series of the server plugins (bundles, decision logs, status): `labels` is
    // "{k=\"v\"}" or empty. Counters add, gauges are set.
    void plugin_add(std::string_view family, std::string_view labels, double delta, std::string_view type,
                    std::string_view help);
    void plugin_set(std::string_view family, std::string_view labels, double value, std::string_view help);

    // For tests.
    std::uint64_t reloads(bool ok) const { return ok ? reload_ok_.load() : reload_failed_.load(); }

private:
    mutable std::mutex mutex_;
    // Transparent comparators: a request looks its series up by views; strings are made
    // only for a series' first request (no allocation on the request path after that).
    std::map<std::tuple<std::string, std::string, int>, std::uint64_t, std::less<>> requests_;
    std::map<std::string, HistogramSeries, std::less<>> latency_;  // over kBuckets
    // OPA's families by (code, handler, method) as labelled, in client_golang's order.
    std::vector<double> opa_bounds_ = opa_default_buckets();
    std::map<std::tuple<std::string, std::string, std::string>, HistogramSeries, std::less<>> opa_latency_;
    std::map<std::tuple<std::string, std::string, std::string>, std::uint64_t> opa_cancellations_;
    struct ListenerSource {
        std::string name, address;
        std::function<ListenerCounts()> counts;
    };
    std::vector<ListenerSource> listeners_;
    std::vector<std::function<void(std::string&)>> collectors_;
    std::string version_ = "unknown", revision_ = "unknown";
    std::map<std::string, double> plugin_series_;                             // "family{labels}" -> value
    std::map<std::string, std::pair<std::string, std::string>> plugin_help_;  // family -> type, help
    std::atomic<std::int64_t> in_flight_{0};
    std::atomic<std::uint64_t> reload_ok_{0}, reload_failed_{0};
    std::atomic<double> last_ok_{0}, last_failed_{0};
};

}  // namespace gavel::webhook
