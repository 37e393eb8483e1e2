#pragma once
// OPA's status plugin metrics (status.prometheus: true), with OPA's names, help
// texts, labels and buckets, updated at each status report as OPA's are:
//
//   opa_info{version}                                   1, from the start
//   plugin_status_gauge{name,status}                    1 per plugin and its state (reset each report)
//   bundle_loaded_counter{name}                         +1 per report in which the bundle is activated without error
//   bundle_failed_load_counter{name,code,message}       +1 per report in which it is not
//   last_bundle_request{name}, last_success_bundle_download{name},
//   last_success_bundle_request{name},
//   last_success_bundle_activation{name,active_revision} Unix nanoseconds (reset each report)
//   bundle_loading_duration_ns{name,stage}              the last poll's timers, observed each report
//
// A time that never happened is Go's zero time in Unix nanoseconds, as OPA reports it.

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "webhook/plugins/bundle_plugin.hpp"
#include "webhook/prometheus_text.hpp"

namespace gavel::webhook::plugins {

class StatusMetrics {
public:
    // `buckets`: bundle_loading_duration_ns's bounds (empty: OPA's, 1 µs doubling to 0.5 s).
    StatusMetrics(std::string version, std::vector<double> buckets);

    // One status report: the bundles' statuses and each plugin's state ("OK", "NOT_READY" ...).
    void update(const std::vector<BundleStatus>& bundles, const std::map<std::string, std::string>& plugins);
    void render(std::string& out) const;

    // time.Time{}.UnixNano() in Go: what OPA sets for a bundle never downloaded or activated.
    static constexpr double kGoZeroTimeUnixNanos = -6795364578871345152.0;

private:
    std::string version_;
    std::vector<double> bounds_;
    mutable std::mutex mutex_;
    std::map<std::pair<std::string, std::string>, double> plugin_status_;  // (name, status)
    std::map<std::string, double> loaded_;
    std::map<std::tuple<std::string, std::string, std::string>, double> failed_;  // (code, message, name)
    std::map<std::string, double> last_request_, last_success_download_, last_success_request_;
    std::map<std::pair<std::string, std::string>, double> last_success_activation_;  // (active_revision, name)
    std::map<std::pair<std::string, std::string>, HistogramSeries> loading_;         // (name, stage)
};

}  // namespace gavel::webhook::plugins
