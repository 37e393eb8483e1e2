#include "webhook/metrics.hpp"

#include <fmt/format.h>

#include <array>

#include "webhook/process_metrics.hpp"

namespace gavel::webhook {

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Label values may hold anything a client sends; Prometheus escapes \, " and newline.
std::string label(std::string_view v) {
    std::string out;
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out.push_back(c);
    }
    return out;
}

// A client may send any method: only the standard ones become label values.
std::string_view method_label(std::string_view method) {
    static constexpr std::array kMethods = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};
    for (std::string_view m : kMethods)
        if (m == method) return m;
    return "other";
}

// OPA's handler label: "v1/data", "v1/query", "health", "metrics"; "index" for POST /.
std::string handler_label(std::string_view endpoint) {
    if (endpoint == "/") return "index";
    if (!endpoint.empty() && endpoint.front() == '/') endpoint.remove_prefix(1);
    return std::string(endpoint);
}

void observe(std::vector<std::uint64_t>& buckets, std::uint64_t& count, double& sum, double seconds) {
    for (std::size_t i = 0; i < Metrics::kBucketCount; ++i)
        if (seconds <= Metrics::kBuckets[i]) {
            ++buckets[i];
            break;
        }
    ++count;
    sum += seconds;
}

}  // namespace

void Metrics::record_request(std::string_view endpoint, std::string_view decision, int code,
                             std::chrono::nanoseconds latency, std::string_view method) {
    double seconds = std::chrono::duration<double>(latency).count();
    std::lock_guard lock(mutex_);
    ++requests_[{std::string(endpoint), std::string(decision), code}];
    auto& h = latency_[std::string(endpoint)];
    observe(h.buckets, h.count, h.sum, seconds);
    auto& o = opa_latency_[{code, handler_label(endpoint), std::string(method_label(method))}];
    observe(o.buckets, o.count, o.sum, seconds);
}

void Metrics::set_build_info(std::string version, std::string revision) {
    std::lock_guard lock(mutex_);
    version_ = std::move(version);
    revision_ = std::move(revision);
}

void Metrics::record_reload(bool ok) {
    if (ok) {
        ++reload_ok_;
        last_ok_ = now_seconds();
    } else {
        ++reload_failed_;
        last_failed_ = now_seconds();
    }
}

void Metrics::plugin_add(std::string_view family, std::string_view labels, double delta, std::string_view type,
                         std::string_view help) {
    std::lock_guard lock(mutex_);
    plugin_help_.try_emplace(std::string(family), std::string(type), std::string(help));
    plugin_series_[std::string(family) + std::string(labels)] += delta;
}

void Metrics::plugin_set(std::string_view family, std::string_view labels, double value, std::string_view help) {
    std::lock_guard lock(mutex_);
    plugin_help_.try_emplace(std::string(family), "gauge", std::string(help));
    plugin_series_[std::string(family) + std::string(labels)] = value;
}

std::string Metrics::render(bool ready, const std::string& config_hash) const {
    std::string out;
    std::lock_guard lock(mutex_);
    out += "# HELP gavel_http_requests_total HTTP requests by endpoint, admission decision and status code.\n";
    out += "# TYPE gavel_http_requests_total counter\n";
    for (const auto& [key, n] : requests_) {
        const auto& [endpoint, decision, code] = key;
        out += fmt::format("gavel_http_requests_total{{endpoint=\"{}\",decision=\"{}\",code=\"{}\"}} {}\n", label(endpoint),
                           label(decision), code, n);
    }
    out += "# HELP gavel_http_request_duration_seconds Time from a complete request to its response.\n";
    out += "# TYPE gavel_http_request_duration_seconds histogram\n";
    for (const auto& [endpoint, h] : latency_) {
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < kBucketCount; ++i) {
            cumulative += h.buckets[i];
            out += fmt::format("gavel_http_request_duration_seconds_bucket{{endpoint=\"{}\",le=\"{}\"}} {}\n",
                               label(endpoint), kBuckets[i], cumulative);
        }
        out += fmt::format("gavel_http_request_duration_seconds_bucket{{endpoint=\"{}\",le=\"+Inf\"}} {}\n", label(endpoint),
                           h.count);
        out += fmt::format("gavel_http_request_duration_seconds_sum{{endpoint=\"{}\"}} {}\n", label(endpoint), h.sum);
        out += fmt::format("gavel_http_request_duration_seconds_count{{endpoint=\"{}\"}} {}\n", label(endpoint), h.count);
    }
    out += "# HELP gavel_reloads_total Policy and data reloads by outcome.\n";
    out += "# TYPE gavel_reloads_total counter\n";
    out += fmt::format("gavel_reloads_total{{status=\"success\"}} {}\n", reload_ok_.load());
    out += fmt::format("gavel_reloads_total{{status=\"failure\"}} {}\n", reload_failed_.load());
    out += "# HELP gavel_last_reload_timestamp_seconds When the last reload of each outcome happened (0: never).\n";
    out += "# TYPE gavel_last_reload_timestamp_seconds gauge\n";
    out += fmt::format("gavel_last_reload_timestamp_seconds{{status=\"success\"}} {:.3f}\n", last_ok_.load());
    out += fmt::format("gavel_last_reload_timestamp_seconds{{status=\"failure\"}} {:.3f}\n", last_failed_.load());
    out += "# HELP gavel_config_info The hash of the active policies and data directory.\n";
    out += "# TYPE gavel_config_info gauge\n";
    out += fmt::format("gavel_config_info{{hash=\"{}\"}} 1\n", label(config_hash));
    out += "# HELP gavel_http_requests_in_flight Requests being handled now.\n";
    out += "# TYPE gavel_http_requests_in_flight gauge\n";
    out += fmt::format("gavel_http_requests_in_flight {}\n", in_flight_.load());
    out += "# HELP gavel_ready 1 when policies are compiled and the server is not shutting down.\n";
    out += "# TYPE gavel_ready gauge\n";
    out += fmt::format("gavel_ready {}\n", ready ? 1 : 0);

    out += "# HELP http_request_duration_seconds A histogram of duration for requests (OPA's name and labels).\n";
    out += "# TYPE http_request_duration_seconds histogram\n";
    for (const auto& [key, h] : opa_latency_) {
        const auto& [code, handler, method] = key;
        std::string labels = fmt::format("code=\"{}\",handler=\"{}\",method=\"{}\"", code, label(handler), method);
        std::uint64_t cumulative = 0;
        for (std::size_t i = 0; i < kBucketCount; ++i) {
            cumulative += h.buckets[i];
            out += fmt::format("http_request_duration_seconds_bucket{{{},le=\"{}\"}} {}\n", labels, kBuckets[i], cumulative);
        }
        out += fmt::format("http_request_duration_seconds_bucket{{{},le=\"+Inf\"}} {}\n", labels, h.count);
        out += fmt::format("http_request_duration_seconds_sum{{{}}} {}\n", labels, h.sum);
        out += fmt::format("http_request_duration_seconds_count{{{}}} {}\n", labels, h.count);
    }
    out += "# HELP gavel_build_info The version and revision gavel was built from (always 1).\n";
    out += "# TYPE gavel_build_info gauge\n";
    out += fmt::format("gavel_build_info{{version=\"{}\",revision=\"{}\"}} 1\n", label(version_), label(revision_));
    // KEP-5793's names for the reload of a configuration from files (the API server's
    // apiserver_manifest_admission_config_controller_*), here for policies and data.
    out += "# HELP gavel_config_controller_automatic_reloads_total Automatic reloads of policies and data by status.\n";
    out += "# TYPE gavel_config_controller_automatic_reloads_total counter\n";
    out += fmt::format("gavel_config_controller_automatic_reloads_total{{status=\"success\"}} {}\n", reload_ok_.load());
    out += fmt::format("gavel_config_controller_automatic_reloads_total{{status=\"failure\"}} {}\n", reload_failed_.load());
    out += "# HELP gavel_config_controller_automatic_reload_last_timestamp_seconds When the last reload of each status happened.\n";
    out += "# TYPE gavel_config_controller_automatic_reload_last_timestamp_seconds gauge\n";
    out += fmt::format("gavel_config_controller_automatic_reload_last_timestamp_seconds{{status=\"success\"}} {:.3f}\n", last_ok_.load());
    out += fmt::format("gavel_config_controller_automatic_reload_last_timestamp_seconds{{status=\"failure\"}} {:.3f}\n", last_failed_.load());
    out += "# HELP gavel_config_controller_last_config_info The hash of the configuration in use (always 1).\n";
    out += "# TYPE gavel_config_controller_last_config_info gauge\n";
    out += fmt::format("gavel_config_controller_last_config_info{{hash=\"{}\"}} 1\n", label(config_hash));
    out += process_metrics_text();
    std::string family;
    for (const auto& [series, v] : plugin_series_) {
        std::string name = series.substr(0, series.find('{'));
        if (name != family) {
            family = name;
            auto help = plugin_help_.find(name);
            if (help != plugin_help_.end()) out += "# HELP " + name + " " + help->second.second + "\n# TYPE " + name + " " + help->second.first + "\n";
        }
        out += fmt::format("{} {}\n", series, v);
    }
    return out;
}

}  // namespace gavel::webhook
