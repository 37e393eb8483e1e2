#include "webhook/plugins/status_reporter.hpp"

#include "runtime/json.hpp"
#include "webhook/log.hpp"
#include "webhook/plugins/service_client.hpp"
#include "webhook/value_text.hpp"

namespace gavel::webhook::plugins {

using runtime::Value;

StatusReporter::StatusReporter(StatusConfig config, const Config& full, std::shared_ptr<Metrics> metrics,
                               std::map<std::string, std::string> labels)
    : config_(std::move(config)), metrics_(std::move(metrics)) {
    if (!config_.service.empty()) service_ = full.services.at(config_.service);
    runtime::ObjectBuilder b;
    for (const auto& [k, v] : labels) b.insert(str(k), str(v));
    labels_ = b.build();
    if (config_.prometheus) {
        auto version = labels.find("version");
        status_metrics_ = std::make_shared<StatusMetrics>(version == labels.end() ? "" : version->second,
                                                          config_.bundle_loading_buckets);
        metrics_->add_collector([m = status_metrics_](std::string& out) { m->render(out); });
    }
}

std::map<std::string, std::string> StatusReporter::plugin_states(const std::vector<BundleStatus>& bundles,
                                                                 bool decision_logs) {
    bool all_ok = true;
    for (const auto& s : bundles)
        if (!s.activated) all_ok = false;
    std::map<std::string, std::string> states = {{"bundle", all_ok ? "OK" : "NOT_READY"}, {"status", "OK"}};
    if (decision_logs) states["decision_logs"] = "OK";
    return states;
}

StatusReporter::~StatusReporter() { stop(); }

Value StatusReporter::report(const std::vector<BundleStatus>& bundles, const Value& labels, bool decision_logs) {
    runtime::ObjectBuilder bs;
    for (const auto& s : bundles) {
        runtime::ObjectBuilder b;
        b.insert(str("name"), str(s.name));
        b.insert(str("active_revision"), str(s.active_revision));
        if (!s.last_successful_activation.empty())
            b.insert(str("last_successful_activation"), str(s.last_successful_activation));
        if (!s.last_successful_download.empty())
            b.insert(str("last_successful_download"), str(s.last_successful_download));
        if (!s.last_request.empty()) b.insert(str("last_request"), str(s.last_request));
        if (!s.last_successful_request.empty())
            b.insert(str("last_successful_request"), str(s.last_successful_request));
        if (!s.code.empty()) b.insert(str("code"), str(s.code));
        if (!s.message.empty()) b.insert(str("message"), str(s.message));
        if (!s.errors.empty()) {
            runtime::ArrayBuilder errs;
            for (const auto& e : s.errors) errs.push_back(str(e));
            b.insert(str("errors"), errs.build());
        }
        if (s.http_code) b.insert(str("http_code"), Value::integer(s.http_code));
        b.insert(str("type"), str("snapshot"));
        bs.insert(str(s.name), b.build());
    }
    runtime::ObjectBuilder plugins;
    for (const auto& [name, state] : plugin_states(bundles, decision_logs))
        plugins.insert(str(name), Value::object({{str("state"), str(state)}}));
    return Value::object({{str("labels"), labels}, {str("bundles"), bs.build()}, {str("plugins"), plugins.build()}});
}

void StatusReporter::update(const std::vector<BundleStatus>& bundles, bool decision_logs) {
    Value r = report(bundles, labels_, decision_logs);
    if (status_metrics_) status_metrics_->update(bundles, plugin_states(bundles, decision_logs));
    if (config_.console) log_line("info", "Status Log", {{"status", r}, {"type", str("openpolicyagent.org/status")}});
    if (!service_) return;
    {
        std::lock_guard lock(mutex_);
        pending_ = r;
    }
    wake_.notify_all();
}

void StatusReporter::start() {
    if (service_) thread_ = std::thread([this] { loop(); });
}

void StatusReporter::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void StatusReporter::loop() {
    std::string resource = config_.partition_name.empty() ? "/status" : "/status/" + config_.partition_name;
    while (true) {
        Value r;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || pending_; });
            if (stopping_) return;
            r = *pending_;
            pending_.reset();
        }
        auto response = call_service(*service_, "POST", resource, {{"Content-Type", "application/json"}},
                                     runtime::to_json(r), std::chrono::seconds(10));
        bool ok = response.status >= 200 && response.status < 300;
        metrics_->plugin_add("gavel_status_reports_total", ok ? "{status=\"success\"}" : "{status=\"failure\"}", 1,
                             "counter", "Status reports sent, by outcome.");
        if (!ok)
            log_line("error", "status update failed",
                     {{"error", str(response.status ? "server replied with HTTP " + std::to_string(response.status)
                                                    : response.error)}});
    }
}

}  // namespace gavel::webhook::plugins
