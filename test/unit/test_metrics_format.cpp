// /metrics as Prometheus reads it: a small parser of the text exposition
// format (0.0.4) checks the whole output (names, label syntax and escaping,
// TYPE before samples, one TYPE per family, no duplicate series, histogram
// buckets cumulative with +Inf equal to _count), then the metrics dashboards
// expect are there: OPA's http_request_duration_seconds{code,handler,method}
// (OPA's help text, label values, buckets and number format, byte for byte),
// OPA's status plugin metrics, process_*, gavel_build_info, the listeners'
// connections and KEP-5793's reload metrics.

#include <doctest/doctest.h>
#include <re2/re2.h>

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/json.hpp"
#include "webhook/metrics.hpp"
#include "webhook/plugins/status_metrics.hpp"
#include "webhook/prometheus_text.hpp"

namespace {

struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

struct Exposition {
    std::map<std::string, std::string> types;  // family -> counter, gauge, histogram ...
    std::vector<Sample> samples;
    std::vector<std::string> errors;
};

bool valid_name(const std::string& s) {
    static const RE2 re("[a-zA-Z_:][a-zA-Z0-9_:]*");
    return RE2::FullMatch(s, re);
}

// The family a sample belongs to: histogram series carry _bucket, _sum or _count.
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        std::string s = suffix;
        if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
            std::string base = name.substr(0, name.size() - s.size());
            if (auto it = types.find(base); it != types.end() && (it->second == "histogram" || it->second == "summary"))
                return base;
        }
    }
    return name;
}

Exposition parse(const std::string& text) {
    Exposition e;
    std::set<std::string> series;
    std::size_t pos = 0;
    int line_no = 0;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        if (nl == std::string::npos) {
            e.errors.push_back("no newline at the end");
            break;
        }
        std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++line_no;
        auto err = [&](const std::string& m) {
            e.errors.push_back("line " + std::to_string(line_no) + ": " + m + ": " + line);
        };
        if (line.empty()) continue;
        if (line[0] == '#') {
            // RE2 rather than std::regex: GCC 12 reports std::regex's own internals as
            // maybe-uninitialized in the sanitizer build.
            std::string name, type;
            static const RE2 type_re("# TYPE ([^ ]+) (counter|gauge|histogram|summary|untyped)");
            static const RE2 help_re("# HELP ([^ ]+) .*");
            if (RE2::FullMatch(line, type_re, &name, &type)) {
                if (!valid_name(name)) err("bad name");
                if (e.types.count(name)) err("second TYPE");
                e.types[name] = type;
            } else if (!RE2::FullMatch(line, help_re)) {
                err("bad comment");
            }
            continue;
        }
        Sample s;
        std::size_t i = 0;
        while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
        s.name = line.substr(0, i);
        if (!valid_name(s.name)) err("bad metric name");
        if (i < line.size() && line[i] == '{') {
            ++i;
            while (i < line.size() && line[i] != '}') {
                std::size_t eq = line.find('=', i);
                if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') {
                    err("bad label");
                    break;
                }
                std::string key = line.substr(i, eq - i);
                if (!valid_name(key) || key.rfind("__", 0) == 0) err("bad label name " + key);
                std::string value;
                std::size_t j = eq + 2;
                for (; j < line.size() && line[j] != '"'; ++j) {
                    if (line[j] == '\\') {
                        ++j;
                        if (j >= line.size() || (line[j] != '\\' && line[j] != '"' && line[j] != 'n'))
                            err("bad escape");
                        value += line[j] == 'n' ? '\n' : line[j];
                    } else {
                        value += line[j];
                    }
                }
                if (j >= line.size()) {
                    err("unterminated label value");
                    break;
                }
                if (s.labels.count(key)) err("duplicate label");
                s.labels[key] = value;
                i = j + 1;
                if (i < line.size() && line[i] == ',') ++i;
            }
            if (i >= line.size() || line[i] != '}') err("unterminated labels");
            ++i;
        }
        if (i >= line.size() || line[i] != ' ') {
            err("no value");
            continue;
        }
        std::string value = line.substr(i + 1);
        try {
            std::size_t used = 0;
            s.value = value == "+Inf" ? INFINITY : value == "-Inf" ? -INFINITY : std::stod(value, &used);
            if (value != "+Inf" && value != "-Inf" && used != value.size())
                err("value has trailing text (timestamps are not used)");
        } catch (...) {
            err("bad value");
        }
        std::string family = family_of(s.name, e.types);
        if (!e.types.count(family)) err("sample before its TYPE");
        std::string key = s.name;
        for (const auto& [k, v] : s.labels) key += "|" + k + "=" + v;
        if (!series.insert(key).second) err("duplicate series");
        e.samples.push_back(std::move(s));
    }
    // Histograms: per label set without le, cumulative buckets ending in +Inf == _count.
    for (const auto& [family, type] : e.types) {
        if (type != "histogram") continue;
        std::map<std::string, std::vector<std::pair<double, double>>> buckets;
        std::map<std::string, double> counts;
        for (const auto& s : e.samples) {
            std::string key;
            for (const auto& [k, v] : s.labels)
                if (k != "le") key += k + "=" + v + ",";
            if (s.name == family + "_bucket") {
                const std::string& le = s.labels.count("le") ? s.labels.at("le") : "";
                buckets[key].push_back({le == "+Inf" ? INFINITY : std::stod(le), s.value});
            }
            if (s.name == family + "_count") counts[key] = s.value;
        }
        for (const auto& [key, list] : buckets) {
            for (std::size_t i = 1; i < list.size(); ++i)
                if (list[i].first <= list[i - 1].first || list[i].second < list[i - 1].second)
                    e.errors.push_back(family + "{" + key + "}: buckets not ascending and cumulative");
            if (list.empty() || !std::isinf(list.back().first) || list.back().second != counts[key])
                e.errors.push_back(family + "{" + key + "}: +Inf bucket differs from _count");
        }
    }
    return e;
}

const Sample* find(const Exposition& e, const std::string& name,
                   const std::map<std::string, std::string>& labels = {}) {
    for (const auto& s : e.samples) {
        if (s.name != name) continue;
        bool all = true;
        for (const auto& [k, v] : labels)
            if (!s.labels.count(k) || s.labels.at(k) != v) all = false;
        if (all) return &s;
    }
    return nullptr;
}

}  // namespace

TEST_CASE("metrics: the parser itself finds errors") {
    CHECK(parse("# TYPE a counter\na 1\n").errors.empty());
    CHECK_FALSE(parse("a 1\n").errors.empty());                               // no TYPE
    CHECK_FALSE(parse("# TYPE a counter\na{x=\"1} 1\n").errors.empty());      // unterminated
    CHECK_FALSE(parse("# TYPE a counter\na 1\na 2\n").errors.empty());        // duplicate series
    CHECK_FALSE(parse("# TYPE a counter\na{x=\"\\q\"} 1\n").errors.empty());  // bad escape
    CHECK_FALSE(parse("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n").errors.empty());
    CHECK_FALSE(parse("# TYPE 1a gauge\n").errors.empty());
}

TEST_CASE("metrics: the whole /metrics text is valid, with the names dashboards expect") {
    gavel::webhook::Metrics m;
    m.set_build_info("0.1.0", "abc123-dirty");
    m.record_request("/validate", "denied", 200, std::chrono::microseconds(300));
    m.record_request("/validate", "allowed", 200, std::chrono::milliseconds(2));
    m.record_request("/v1/data", "", 404, std::chrono::microseconds(80));
    m.record_request("/", "allowed", 200, std::chrono::microseconds(80));
    m.record_opa_request("validate", 200, "POST", std::chrono::microseconds(300));
    m.record_opa_request("validate", 200, "POST", std::chrono::milliseconds(2));
    m.record_opa_request("v1/data", 404, "GET", std::chrono::microseconds(80));
    m.record_opa_request("index", 200, "POST", std::chrono::microseconds(80));
    m.record_opa_request("catchall", 405, "BREW\"\n", std::chrono::microseconds(5), true);  // any method a client sends
    m.add_listener("api", "127.0.0.1:8181", [] { return gavel::webhook::Metrics::ListenerCounts{3, 2, 1}; });
    m.record_reload(true);
    m.record_reload(false);
    std::string text = m.render(true, "h\"ash");
    auto e = parse(text);
    for (const auto& err : e.errors) MESSAGE(err);
    CHECK(e.errors.empty());

    // OPA's request histogram.
    CHECK(e.types["http_request_duration_seconds"] == "histogram");
    auto* validate =
        find(e, "http_request_duration_seconds_count", {{"code", "200"}, {"handler", "validate"}, {"method", "post"}});
    REQUIRE(validate);
    CHECK(validate->value == 2);
    CHECK(find(e, "http_request_duration_seconds_count", {{"code", "404"}, {"handler", "v1/data"}, {"method", "get"}}));
    CHECK(find(e, "http_request_duration_seconds_count", {{"handler", "index"}}));
    CHECK(find(e, "http_request_duration_seconds_count", {{"handler", "catchall"}, {"method", "unknown"}}));
    // Its cancellations keep the method as sent (escaped).
    CHECK(e.types["http_request_cancellations"] == "counter");
    CHECK(find(e, "http_request_cancellations", {{"code", "405"}, {"handler", "catchall"}, {"method", "BREW\"\n"}})
              ->value == 1);
    // The listeners' connections.
    CHECK(find(e, "gavel_connections", {{"listener", "api"}, {"address", "127.0.0.1:8181"}})->value == 3);
    CHECK(find(e, "gavel_connections_refused_total", {{"listener", "api"}})->value == 2);
    CHECK(find(e, "gavel_connections_evicted_total", {{"listener", "api"}})->value == 1);
    CHECK(e.types["gavel_connections_refused_total"] == "counter");
    // Build info.
    auto* build = find(e, "gavel_build_info", {{"version", "0.1.0"}, {"revision", "abc123-dirty"}});
    REQUIRE(build);
    CHECK(build->value == 1);
    // KEP-5793's reload metrics.
    CHECK(e.types["gavel_config_controller_automatic_reloads_total"] == "counter");
    CHECK(find(e, "gavel_config_controller_automatic_reloads_total", {{"status", "success"}})->value == 1);
    CHECK(find(e, "gavel_config_controller_automatic_reloads_total", {{"status", "failure"}})->value == 1);
    CHECK(find(e, "gavel_config_controller_automatic_reload_last_timestamp_seconds", {{"status", "success"}})->value >
          1.7e9);
    CHECK(find(e, "gavel_config_controller_last_config_info", {{"hash", "h\"ash"}}));
    // Prometheus' process metrics.
    for (const char* name :
         {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
          "process_open_fds", "process_max_fds", "process_start_time_seconds"}) {
        MESSAGE(std::string(name));
        REQUIRE(find(e, name));
        CHECK(find(e, name)->value >= 0);
    }
    CHECK(e.types["process_cpu_seconds_total"] == "counter");
    CHECK(find(e, "process_resident_memory_bytes")->value > 1e6);
    CHECK(find(e, "process_start_time_seconds")->value > 1.7e9);
}

namespace {
// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_with(const std::string& text, const std::string& prefix) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        auto nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl - pos);
        if (line.rfind(prefix, 0) == 0) out.push_back(line);
        if (nl == std::string::npos) break;
        pos = nl + 1;
    }
    return out;
}
}  // namespace

TEST_CASE("metrics: numbers as Go's client library writes them") {
    using gavel::webhook::prometheus_number;
    // Recorded from OPA 1.7.1's /metrics (le bounds, sums, timestamps) and Go's strconv 'g'.
    CHECK(prometheus_number(1e-6) == "1e-06");
    CHECK(prometheus_number(5e-5) == "5e-05");
    CHECK(prometheus_number(1e-4) == "0.0001");
    CHECK(prometheus_number(0.000425525) == "0.000425525");
    CHECK(prometheus_number(1.9969e-05) == "1.9969e-05");
    CHECK(prometheus_number(1) == "1");
    CHECK(prometheus_number(0) == "0");
    CHECK(prometheus_number(13) == "13");
    CHECK(prometheus_number(795506) == "795506");
    CHECK(prometheus_number(1.024e6) == "1.024e+06");
    CHECK(prometheus_number(5.557587e+07) == "5.557587e+07");
    CHECK(prometheus_number(1.7957788361315653e+18) == "1.7957788361315653e+18");
    CHECK(prometheus_number(-6795364578871345152.0) == "-6.795364578871345e+18");
    CHECK(prometheus_number(INFINITY) == "+Inf");
    CHECK(prometheus_number(-1) == "-1");
}

TEST_CASE("metrics: OPA's http_request_duration_seconds, byte for byte") {
    gavel::webhook::Metrics m;
    // No family before its first series, as OPA's registry.
    CHECK(m.render(true, "h").find("# TYPE http_request_duration_seconds ") == std::string::npos);
    CHECK(m.render(true, "h").find("http_request_cancellations") == std::string::npos);
    m.record_opa_request("v1/data", 200, "GET", std::chrono::microseconds(300));
    m.record_opa_request("v1/data", 200, "GET", std::chrono::milliseconds(20));
    m.record_opa_request("authz", 401, "POST", std::chrono::microseconds(3));
    std::string text = m.render(true, "h");
    CHECK(parse(text).errors.empty());
    CHECK(lines_with(text, "# HELP http_request_duration_seconds ") ==
          std::vector<std::string>{"# HELP http_request_duration_seconds A histogram of duration for requests."});
    // OPA's default buckets, cumulative, with client_golang's labels (code as text, method in lower case).
    CHECK(lines_with(text, "http_request_duration_seconds_bucket{code=\"200\"") ==
          std::vector<std::string>{
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="1e-06"} 0)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="5e-06"} 0)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="1e-05"} 0)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="5e-05"} 0)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="0.0001"} 0)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="0.0005"} 1)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="0.001"} 1)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="0.01"} 1)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="0.1"} 2)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="1"} 2)",
              R"(http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",le="+Inf"} 2)",
          });
    CHECK(find(parse(text), "http_request_duration_seconds_sum", {{"code", "200"}})->value == doctest::Approx(0.0203));
    CHECK(
        lines_with(text, "http_request_duration_seconds_count{code=\"401\"") ==
        std::vector<std::string>{R"(http_request_duration_seconds_count{code="401",handler="authz",method="post"} 1)"});

    // server.metrics.prom.http_request_duration_seconds.buckets replaces the bounds.
    std::vector<double> bounds;
    std::string error;
    REQUIRE(gavel::webhook::histogram_bounds(gavel::runtime::parse_json("[0.001, 0.5, 2]").value, "b", bounds, error));
    m.set_opa_buckets(bounds);
    m.record_opa_request("health", 200, "get", std::chrono::milliseconds(1));
    text = m.render(true, "h");
    CHECK(lines_with(text, "http_request_duration_seconds_bucket") ==
          std::vector<std::string>{
              R"(http_request_duration_seconds_bucket{code="200",handler="health",method="get",le="0.001"} 1)",
              R"(http_request_duration_seconds_bucket{code="200",handler="health",method="get",le="0.5"} 1)",
              R"(http_request_duration_seconds_bucket{code="200",handler="health",method="get",le="2"} 1)",
              R"(http_request_duration_seconds_bucket{code="200",handler="health",method="get",le="+Inf"} 1)",
          });
}

TEST_CASE("metrics: bucket lists from OPA's configuration") {
    using gavel::webhook::histogram_bounds;
    auto json = [](const char* text) { return gavel::runtime::parse_json(text).value; };
    std::vector<double> bounds;
    std::string error;
    CHECK(histogram_bounds(json("[1, 2.5, 10]"), "x", bounds, error));
    CHECK(bounds == std::vector<double>{1, 2.5, 10});
    // An empty list: Prometheus' default buckets (what client_golang does with none).
    CHECK(histogram_bounds(json("[]"), "x", bounds, error));
    CHECK(bounds == gavel::webhook::prometheus_default_buckets());
    // OPA panics on every request with these; gavel refuses them at start.
    CHECK_FALSE(histogram_bounds(json("[0.5, 0.1]"), "x", bounds, error));
    CHECK(error == "x: histogram buckets must be in increasing order: 0.500000 >= 0.100000");
    CHECK_FALSE(histogram_bounds(json("[1, 1]"), "x", bounds, error));
    CHECK_FALSE(histogram_bounds(json("[\"x\"]"), "x", bounds, error));
    CHECK(error == "x: want a list of numbers");
    CHECK_FALSE(histogram_bounds(json("\"abc\""), "x", bounds, error));
}

TEST_CASE("metrics: OPA's status plugin metrics") {
    using gavel::webhook::plugins::BundleStatus;
    gavel::webhook::plugins::StatusMetrics status("0.1.0", {});
    std::string text;
    status.render(text);
    // Before any report: opa_info only.
    CHECK(text ==
          "# HELP opa_info Information about the OPA environment.\n# TYPE opa_info gauge\nopa_info{version=\"0.1.0\"} "
          "1\n");

    BundleStatus ok;
    ok.name = "authz";
    ok.active_revision = "rev1";
    ok.last_request = ok.last_successful_request = ok.last_successful_download = "2026-11-27T11:27:16.131565Z";
    ok.last_successful_activation = "2026-11-27T11:27:16.132220Z";
    ok.activated = true;
    ok.timers_ns = {{"timer_bundle_request_ns", 1500000}, {"timer_rego_load_bundles_ns", 3000}, {"timer_other_ns", 1}};
    BundleStatus failed;
    failed.name = "b2";
    failed.code = "bundle_error";
    failed.message = "server replied with \"Not Found\"";
    failed.last_request = "2026-11-27T11:27:16.479306Z";
    failed.timers_ns = {{"timer_bundle_request_ns", 999}};
    BundleStatus unpolled;  // no download attempt has ended: OPA has no status for it yet
    unpolled.name = "later";
    unpolled.last_request = "2026-11-27T11:27:16.479306Z";
    std::map<std::string, std::string> plugins = {{"bundle", "NOT_READY"}, {"status", "OK"}};
    status.update({ok, failed, unpolled}, plugins);
    status.update({ok, failed, unpolled}, plugins);
    text.clear();
    status.render(text);
    auto e = parse(text);
    for (const auto& err : e.errors) MESSAGE(err);
    CHECK(e.errors.empty());
    CHECK(find(e, "bundle_loaded_counter", {{"name", "authz"}})->value == 2);  // one per report, as OPA
    CHECK_FALSE(find(e, "bundle_loaded_counter", {{"name", "later"}}));
    CHECK(
        lines_with(text, "bundle_failed_load_counter{") ==
        std::vector<std::string>{
            R"(bundle_failed_load_counter{code="bundle_error",message="server replied with \"Not Found\"",name="b2"} 2)"});
    CHECK(lines_with(text, "last_success_bundle_activation{") ==
          std::vector<std::string>{
              R"(last_success_bundle_activation{active_revision="",name="b2"} -6.795364578871345e+18)",
              R"(last_success_bundle_activation{active_revision="rev1",name="authz"} 1.79577883613222e+18)"});
    CHECK(lines_with(text, "last_bundle_request{name=\"authz\"}") ==
          std::vector<std::string>{R"(last_bundle_request{name="authz"} 1.795778836131565e+18)"});
    CHECK(find(e, "last_success_bundle_download", {{"name", "b2"}})->value < 0);  // Go's zero time
    // The stage timers OPA observes, in OPA's buckets (1000 ns doubling, 20 of them).
    CHECK(e.types["bundle_loading_duration_ns"] == "histogram");
    CHECK(
        find(e, "bundle_loading_duration_ns_count", {{"name", "authz"}, {"stage", "timer_bundle_request_ns"}})->value ==
        2);
    CHECK(find(e, "bundle_loading_duration_ns_bucket",
               {{"name", "authz"}, {"stage", "timer_rego_load_bundles_ns"}, {"le", "4000"}})
              ->value == 2);
    CHECK(find(e, "bundle_loading_duration_ns_bucket",
               {{"name", "authz"}, {"stage", "timer_bundle_request_ns"}, {"le", "5.24288e+08"}}));
    CHECK_FALSE(find(e, "bundle_loading_duration_ns_count", {{"stage", "timer_other_ns"}}));
    CHECK(find(e, "plugin_status_gauge", {{"name", "bundle"}, {"status", "NOT_READY"}})->value == 1);
    // plugin_status_gauge is reset at each report.
    status.update({ok}, {{"bundle", "OK"}});
    text.clear();
    status.render(text);
    CHECK(lines_with(text, "plugin_status_gauge{") ==
          std::vector<std::string>{R"(plugin_status_gauge{name="bundle",status="OK"} 1)"});
}
