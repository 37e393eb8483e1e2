#include "webhook/metrics.hpp"

#include <fmt/format.h>

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

}  // namespace

void Metrics::record_request(std::string_view endpoint, std::string_view decision, int code,
                             std::chrono::nanoseconds latency) {
    double seconds = std::chrono::duration<double>(latency).count();
    std::lock_guard lock(mutex_);
    ++requests_[{std::string(endpoint), std::string(decision), code}];
    auto& h = latency_[std::string(endpoint)];
    for (std::size_t i = 0; i < kBucketCount; ++i)
        if (seconds <= kBuckets[i]) {
            ++h.buckets[i];
            break;
        }
    ++h.count;
    h.sum += seconds;
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
    out += fmt::format("gavel_config_info{{hash=\"{}\"}} 1\n", config_hash);
    out += "# HELP gavel_http_requests_in_flight Requests being handled now.\n";
    out += "# TYPE gavel_http_requests_in_flight gauge\n";
    out += fmt::format("gavel_http_requests_in_flight {}\n", in_flight_.load());
    out += "# HELP gavel_ready 1 when policies are compiled and the server is not shutting down.\n";
    out += "# TYPE gavel_ready gauge\n";
    out += fmt::format("gavel_ready {}\n", ready ? 1 : 0);
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
