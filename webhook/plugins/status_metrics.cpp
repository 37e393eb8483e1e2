#include "webhook/plugins/status_metrics.hpp"

#include <array>
#include <string_view>

#include "webhook/log.hpp"

namespace gavel::webhook::plugins {

namespace {

// OPA's default for status.prometheus_config...bundle_loading_duration_ns.buckets:
// 20 buckets from 1000 ns, each twice the one before.
std::vector<double> default_loading_buckets() {
    std::vector<double> bounds;
    for (double b = 1000; bounds.size() < 20; b *= 2) bounds.push_back(b);
    return bounds;
}

// The timers OPA's status plugin observes (others a bundle's metrics hold are not).
bool observed_stage(std::string_view stage) {
    static constexpr std::array<std::string_view, 5> kStages = {
        "timer_bundle_request_ns", "timer_rego_data_parse_ns", "timer_rego_module_parse_ns",
        "timer_rego_module_compile_ns", "timer_rego_load_bundles_ns"};
    for (auto s : kStages)
        if (s == stage) return true;
    return false;
}

double unix_nanos(const std::string& timestamp) {
    auto ns = utc_timestamp_unix_nanos(timestamp);
    return ns ? static_cast<double>(*ns) : StatusMetrics::kGoZeroTimeUnixNanos;
}

std::string labels(std::initializer_list<std::pair<std::string_view, std::string_view>> pairs) {
    std::string out;
    for (const auto& [k, v] : pairs) {
        if (!out.empty()) out += ',';
        out += std::string(k) + "=\"" + prometheus_label_value(v) + "\"";
    }
    return out;
}

void sample(std::string& out, std::string_view name, const std::string& labels, double value) {
    out += std::string(name) + "{" + labels + "} " + prometheus_number(value) + "\n";
}

}  // namespace

StatusMetrics::StatusMetrics(std::string version, std::vector<double> buckets)
    : version_(std::move(version)), bounds_(buckets.empty() ? default_loading_buckets() : std::move(buckets)) {}

void StatusMetrics::update(const std::vector<BundleStatus>& bundles,
                           const std::map<std::string, std::string>& plugins) {
    std::lock_guard lock(mutex_);
    plugin_status_.clear();
    for (const auto& [name, state] : plugins) plugin_status_[{name, state}] = 1;
    last_success_activation_.clear();
    for (const auto& b : bundles) {
        // OPA has a bundle's status once a download attempt has ended (or it was loaded from disk).
        if (!b.activated && b.code.empty() && b.last_successful_request.empty()) continue;
        if (b.code.empty() && !b.last_successful_activation.empty()) loaded_[b.name] += 1;
        else failed_[{b.code, b.message, b.name}] += 1;
        last_success_activation_[{b.active_revision, b.name}] = unix_nanos(b.last_successful_activation);
        last_success_download_[b.name] = unix_nanos(b.last_successful_download);
        last_success_request_[b.name] = unix_nanos(b.last_successful_request);
        last_request_[b.name] = unix_nanos(b.last_request);
        for (const auto& [stage, ns] : b.timers_ns)
            if (observed_stage(stage))
                loading_.try_emplace({b.name, stage}, bounds_.size())
                    .first->second.observe(bounds_, static_cast<double>(ns));
    }
}

void StatusMetrics::render(std::string& out) const {
    std::lock_guard lock(mutex_);
    // As client_golang's registry: families by name, a family only once it has a series.
    if (!failed_.empty())
        render_family_header(out, "bundle_failed_load_counter", "counter", "Counter for the failed bundle load.");
    for (const auto& [key, v] : failed_) {
        const auto& [code, message, name] = key;
        sample(out, "bundle_failed_load_counter", labels({{"code", code}, {"message", message}, {"name", name}}), v);
    }
    if (!loaded_.empty())
        render_family_header(out, "bundle_loaded_counter", "counter", "Counter for the bundle loaded.");
    for (const auto& [name, v] : loaded_) sample(out, "bundle_loaded_counter", labels({{"name", name}}), v);
    if (!loading_.empty())
        render_family_header(out, "bundle_loading_duration_ns", "histogram",
                             "Histogram for the bundle loading duration by stage.");
    for (const auto& [key, series] : loading_)
        render_histogram(out, "bundle_loading_duration_ns", labels({{"name", key.first}, {"stage", key.second}}),
                         bounds_, series);
    auto gauges = [&out](std::string_view family, std::string_view help, const std::map<std::string, double>& values) {
        if (!values.empty()) render_family_header(out, family, "gauge", help);
        for (const auto& [name, v] : values) sample(out, family, labels({{"name", name}}), v);
    };
    gauges("last_bundle_request", "Gauge for the last bundle request.", last_request_);
    if (!last_success_activation_.empty())
        render_family_header(out, "last_success_bundle_activation", "gauge",
                             "Gauge for the last success bundle activation.");
    for (const auto& [key, v] : last_success_activation_)
        sample(out, "last_success_bundle_activation", labels({{"active_revision", key.first}, {"name", key.second}}),
               v);
    gauges("last_success_bundle_download", "Gauge for the last success bundle download.", last_success_download_);
    gauges("last_success_bundle_request", "Gauge for the last success bundle request.", last_success_request_);
    render_family_header(out, "opa_info", "gauge", "Information about the OPA environment.");
    sample(out, "opa_info", labels({{"version", version_}}), 1);
    if (!plugin_status_.empty())
        render_family_header(out, "plugin_status_gauge", "gauge", "Gauge for the plugin by status.");
    for (const auto& [key, v] : plugin_status_)
        sample(out, "plugin_status_gauge", labels({{"name", key.first}, {"status", key.second}}), v);
}

}  // namespace gavel::webhook::plugins
