#include "webhook/metrics.hpp"

#include <fmt/format.h>

#include <array>
#include <iterator>

#include "webhook/process_metrics.hpp"

namespace gavel::webhook {

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string label(std::string_view v) { return prometheus_label_value(v); }

// client_golang's method label: the methods it knows, in lower case; "unknown" for others.
std::string_view opa_method_label(std::string_view method) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 10> kMethods = {{
        {"GET", "get"},
        {"PUT", "put"},
        {"HEAD", "head"},
        {"POST", "post"},
        {"DELETE", "delete"},
        {"CONNECT", "connect"},
        {"OPTIONS", "options"},
        {"NOTIFY", "notify"},
        {"TRACE", "trace"},
        {"PATCH", "patch"},
    }};
    for (const auto& [upper, lower] : kMethods)
        if (method == upper || method == lower) return lower;
    return "unknown";
}

// client_golang's code label: no status written counts as 200. (Written into `buf`.)
std::string_view opa_code_label(int code, std::array<char, 4>& buf) {
    if (code == 0) return "200";
    if (code < 100 || code > 599) return "unknown";
    buf = {static_cast<char>('0' + code / 100), static_cast<char>('0' + code / 10 % 10),
           static_cast<char>('0' + code % 10), 0};
    return std::string_view(buf.data(), 3);
}

// The series at `key` (views), made on its first use only.
template <class Map, class Key, class... Args>
auto& series(Map& map, const Key& key, Args&&... args) {
    auto it = map.find(key);
    if (it == map.end()) {
        auto owned = std::apply(
            [](const auto&... parts) { return typename Map::key_type(typename Map::key_type(parts...)); }, key);
        it = map.emplace(std::move(owned), typename Map::mapped_type(std::forward<Args>(args)...)).first;
    }
    return it->second;
}

const std::vector<double>& gavel_buckets() {
    static const std::vector<double> bounds(std::begin(Metrics::kBuckets), std::end(Metrics::kBuckets));
    return bounds;
}

}  // namespace

void Metrics::record_request(std::string_view endpoint, std::string_view decision, int code,
                             std::chrono::nanoseconds latency) {
    double seconds = std::chrono::duration<double>(latency).count();
    std::lock_guard lock(mutex_);
    ++series(requests_, std::tuple<std::string_view, std::string_view, int>(endpoint, decision, code));
    auto it = latency_.find(endpoint);
    if (it == latency_.end()) it = latency_.try_emplace(std::string(endpoint), kBucketCount).first;
    it->second.observe(gavel_buckets(), seconds);
}

const std::vector<double>& Metrics::opa_default_buckets() {
    // OPA's server.metrics.prom.http_request_duration_seconds.buckets default: 1 µs to 1 s.
    static const std::vector<double> bounds = {1e-6, 5e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 0.01, 0.1, 1};
    return bounds;
}

void Metrics::set_opa_buckets(std::vector<double> bounds) {
    std::lock_guard lock(mutex_);
    opa_bounds_ = std::move(bounds);
    opa_latency_.clear();
}

void Metrics::record_opa_request(std::string_view handler, int code, std::string_view method,
                                 std::chrono::nanoseconds latency, bool cancelled) {
    double seconds = std::chrono::duration<double>(latency).count();
    std::array<char, 4> code_buf{};
    std::tuple<std::string_view, std::string_view, std::string_view> key(opa_code_label(code, code_buf), handler,
                                                                         opa_method_label(method));
    std::lock_guard lock(mutex_);
    series(opa_latency_, key, opa_bounds_.size()).observe(opa_bounds_, seconds);
    // OPA labels its cancellations with the status and the method as they are.
    if (cancelled) ++opa_cancellations_[{std::to_string(code), std::string(handler), std::string(method)}];
}

void Metrics::add_listener(std::string name, std::string address, std::function<ListenerCounts()> counts) {
    std::lock_guard lock(mutex_);
    listeners_.push_back({std::move(name), std::move(address), std::move(counts)});
}

void Metrics::add_collector(std::function<void(std::string&)> render) {
    std::lock_guard lock(mutex_);
    collectors_.push_back(std::move(render));
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
    // Listeners and collectors are read outside the lock: they take locks of their own.
    std::vector<ListenerSource> listeners;
    std::vector<std::function<void(std::string&)>> collectors;
    {
        std::lock_guard lock(mutex_);
        listeners = listeners_;
        collectors = collectors_;
    }
    std::vector<ListenerCounts> counts;
    for (const auto& l : listeners) counts.push_back(l.counts());

    std::string out;
    std::unique_lock lock(mutex_);
    out += "# HELP gavel_http_requests_total HTTP requests by endpoint, admission decision and status code.\n";
    out += "# TYPE gavel_http_requests_total counter\n";
    for (const auto& [key, n] : requests_) {
        const auto& [endpoint, decision, code] = key;
        out += fmt::format("gavel_http_requests_total{{endpoint=\"{}\",decision=\"{}\",code=\"{}\"}} {}\n",
                           label(endpoint), label(decision), code, n);
    }
    out += "# HELP gavel_http_request_duration_seconds Time from a complete request to its response.\n";
    out += "# TYPE gavel_http_request_duration_seconds histogram\n";
    for (const auto& [endpoint, h] : latency_)
        render_histogram(out, "gavel_http_request_duration_seconds", "endpoint=\"" + label(endpoint) + "\"",
                         gavel_buckets(), h);
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

    // OPA's families, as client_golang writes them: no family until it has a series.
    if (!opa_latency_.empty())
        render_family_header(out, "http_request_duration_seconds", "histogram",
                             "A histogram of duration for requests.");
    for (const auto& [key, h] : opa_latency_) {
        const auto& [code, handler, method] = key;
        render_histogram(out, "http_request_duration_seconds",
                         fmt::format("code=\"{}\",handler=\"{}\",method=\"{}\"", code, label(handler), label(method)),
                         opa_bounds_, h);
    }
    if (!opa_cancellations_.empty())
        render_family_header(out, "http_request_cancellations", "counter", "A count of cancelled requests.");
    for (const auto& [key, n] : opa_cancellations_) {
        const auto& [code, handler, method] = key;
        out += fmt::format("http_request_cancellations{{code=\"{}\",handler=\"{}\",method=\"{}\"}} {}\n", label(code),
                           label(handler), label(method), prometheus_number(static_cast<double>(n)));
    }
    // Each listener's connections (webhook::Server's connection cap).
    if (!listeners.empty()) {
        auto family = [&](std::string_view name, std::string_view type, std::string_view help, auto value) {
            render_family_header(out, name, type, help);
            for (std::size_t i = 0; i < listeners.size(); ++i)
                out += fmt::format("{}{{listener=\"{}\",address=\"{}\"}} {}\n", name, label(listeners[i].name),
                                   label(listeners[i].address), value(counts[i]));
        };
        family("gavel_connections", "gauge", "Connections open now, by listener.",
               [](const ListenerCounts& c) { return c.open; });
        family(
            "gavel_connections_refused_total", "counter",
            "Connections closed at once because the listener was at its connection cap and every connection was busy.",
            [](const ListenerCounts& c) { return c.refused; });
        family(
            "gavel_connections_evicted_total", "counter",
            "Connections closed to make room for a new one at the connection cap (the longest waiting for its client).",
            [](const ListenerCounts& c) { return c.evicted; });
    }
    out += "# HELP gavel_build_info The version and revision gavel was built from (always 1).\n";
    out += "# TYPE gavel_build_info gauge\n";
    out += fmt::format("gavel_build_info{{version=\"{}\",revision=\"{}\"}} 1\n", label(version_), label(revision_));
    // KEP-5793's names for the reload of a configuration from files (the API server's
    // apiserver_manifest_admission_config_controller_*), here for policies and data.
    out += "# HELP gavel_config_controller_automatic_reloads_total Automatic reloads of policies and data by status.\n";
    out += "# TYPE gavel_config_controller_automatic_reloads_total counter\n";
    out += fmt::format("gavel_config_controller_automatic_reloads_total{{status=\"success\"}} {}\n", reload_ok_.load());
    out += fmt::format("gavel_config_controller_automatic_reloads_total{{status=\"failure\"}} {}\n",
                       reload_failed_.load());
    out +=
        "# HELP gavel_config_controller_automatic_reload_last_timestamp_seconds When the last reload of each status "
        "happened.\n";
    out += "# TYPE gavel_config_controller_automatic_reload_last_timestamp_seconds gauge\n";
    out += fmt::format("gavel_config_controller_automatic_reload_last_timestamp_seconds{{status=\"success\"}} {:.3f}\n",
                       last_ok_.load());
    out += fmt::format("gavel_config_controller_automatic_reload_last_timestamp_seconds{{status=\"failure\"}} {:.3f}\n",
                       last_failed_.load());
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
            if (help != plugin_help_.end())
                out +=
                    "# HELP " + name + " " + help->second.second + "\n# TYPE " + name + " " + help->second.first + "\n";
        }
        out += fmt::format("{} {}\n", series, v);
    }
    lock.unlock();
    for (const auto& render : collectors) render(out);
    return out;
}

}  // namespace gavel::webhook
