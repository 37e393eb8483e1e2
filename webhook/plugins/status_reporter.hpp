#pragma once
// The status plugin: whenever a bundle's state changes, OPA's status report
// is POSTed to <status service>/status[/<partition_name>] (and/or printed):
//
//   {"labels": {...}, "bundles": {"name": {"name", "active_revision",
//    "last_successful_activation", "last_successful_download", "last_request",
//    "last_successful_request", "code", "message", "errors", "http_code"}},
//    "plugins": {"bundle": {"state": "OK"|"NOT_READY"}, ...}}
//
// Reports are sent from the reporter's own thread, latest state only: a slow
// status service never holds up bundle activation. With `prometheus`, each
// report also updates OPA's status metrics on /metrics (status_metrics.hpp).

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/value.hpp"
#include "webhook/metrics.hpp"
#include "webhook/plugins/bundle_plugin.hpp"
#include "webhook/plugins/config.hpp"
#include "webhook/plugins/status_metrics.hpp"

namespace gavel::webhook::plugins {

class StatusReporter {
public:
    StatusReporter(StatusConfig config, const Config& full, std::shared_ptr<Metrics> metrics,
                   std::map<std::string, std::string> labels);
    ~StatusReporter();
    void start();
    void stop();
    // Queues a report of these bundle statuses (replacing one not yet sent).
    void update(const std::vector<BundleStatus>& bundles, bool decision_logs);

    static runtime::Value report(const std::vector<BundleStatus>& bundles, const runtime::Value& labels,
                                 bool decision_logs);
    // The plugins a report names, with their states.
    static std::map<std::string, std::string> plugin_states(const std::vector<BundleStatus>& bundles,
                                                            bool decision_logs);

private:
    void loop();
    StatusConfig config_;
    std::optional<ServiceConfig> service_;
    std::shared_ptr<Metrics> metrics_;
    std::shared_ptr<StatusMetrics> status_metrics_;  // status.prometheus
    runtime::Value labels_;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::optional<runtime::Value> pending_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace gavel::webhook::plugins
