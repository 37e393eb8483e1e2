// /metrics as Prometheus reads it: a small parser of the text exposition
// format (0.0.4) checks the whole output (names, label syntax and escaping,
// TYPE before samples, one TYPE per family, no duplicate series, histogram
// buckets cumulative with +Inf equal to _count), then the metrics dashboards
// expect are there: OPA's http_request_duration_seconds{code,handler,method},
// process_*, gavel_build_info and KEP-5793's reload metrics.

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "webhook/metrics.hpp"

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
    static const std::regex re("[a-zA-Z_:][a-zA-Z0-9_:]*");
    return std::regex_match(s, re);
}

// The family a sample belongs to: histogram series carry _bucket, _sum or _count.
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        std::string s = suffix;
        if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
            std::string base = name.substr(0, name.size() - s.size());
            if (auto it = types.find(base); it != types.end() && (it->second == "histogram" || it->second == "summary")) return base;
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
        auto err = [&](const std::string& m) { e.errors.push_back("line " + std::to_string(line_no) + ": " + m + ": " + line); };
        if (line.empty()) continue;
        if (line[0] == '#') {
            std::smatch m;
            static const std::regex type_re("# TYPE ([^ ]+) (counter|gauge|histogram|summary|untyped)");
            static const std::regex help_re("# HELP ([^ ]+) .*");
            if (std::regex_match(line, m, type_re)) {
                if (!valid_name(m[1])) err("bad name");
                if (e.types.count(m[1])) err("second TYPE");
                e.types[m[1]] = m[2];
            } else if (!std::regex_match(line, help_re)) {
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
                        if (j >= line.size() || (line[j] != '\\' && line[j] != '"' && line[j] != 'n')) err("bad escape");
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
            if (value != "+Inf" && value != "-Inf" && used != value.size()) err("value has trailing text (timestamps are not used)");
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

const Sample* find(const Exposition& e, const std::string& name, const std::map<std::string, std::string>& labels = {}) {
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
    CHECK_FALSE(parse("a 1\n").errors.empty());                                       // no TYPE
    CHECK_FALSE(parse("# TYPE a counter\na{x=\"1} 1\n").errors.empty());              // unterminated
    CHECK_FALSE(parse("# TYPE a counter\na 1\na 2\n").errors.empty());                // duplicate series
    CHECK_FALSE(parse("# TYPE a counter\na{x=\"\\q\"} 1\n").errors.empty());          // bad escape
    CHECK_FALSE(parse("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n").errors.empty());
    CHECK_FALSE(parse("# TYPE 1a gauge\n").errors.empty());
}

TEST_CASE("metrics: the whole /metrics text is valid, with the names dashboards expect") {
    gavel::webhook::Metrics m;
    m.set_build_info("0.1.0", "abc123-dirty");
    m.record_request("/validate", "denied", 200, std::chrono::microseconds(300), "POST");
    m.record_request("/validate", "allowed", 200, std::chrono::milliseconds(2), "POST");
    m.record_request("/v1/data", "", 404, std::chrono::microseconds(80), "GET");
    m.record_request("/", "allowed", 200, std::chrono::microseconds(80), "POST");
    m.record_request("/health", "", 200, std::chrono::microseconds(5), "BREW\"\n");  // any method a client sends
    m.record_reload(true);
    m.record_reload(false);
    std::string text = m.render(true, "h\"ash");
    auto e = parse(text);
    for (const auto& err : e.errors) MESSAGE(err);
    CHECK(e.errors.empty());

    // OPA's request histogram.
    CHECK(e.types["http_request_duration_seconds"] == "histogram");
    auto* validate = find(e, "http_request_duration_seconds_count", {{"code", "200"}, {"handler", "validate"}, {"method", "POST"}});
    REQUIRE(validate);
    CHECK(validate->value == 2);
    CHECK(find(e, "http_request_duration_seconds_count", {{"code", "404"}, {"handler", "v1/data"}, {"method", "GET"}}));
    CHECK(find(e, "http_request_duration_seconds_count", {{"handler", "index"}}));
    CHECK(find(e, "http_request_duration_seconds_count", {{"handler", "health"}, {"method", "other"}}));
    // Build info.
    auto* build = find(e, "gavel_build_info", {{"version", "0.1.0"}, {"revision", "abc123-dirty"}});
    REQUIRE(build);
    CHECK(build->value == 1);
    // KEP-5793's reload metrics.
    CHECK(e.types["gavel_config_controller_automatic_reloads_total"] == "counter");
    CHECK(find(e, "gavel_config_controller_automatic_reloads_total", {{"status", "success"}})->value == 1);
    CHECK(find(e, "gavel_config_controller_automatic_reloads_total", {{"status", "failure"}})->value == 1);
    CHECK(find(e, "gavel_config_controller_automatic_reload_last_timestamp_seconds", {{"status", "success"}})->value > 1.7e9);
    CHECK(find(e, "gavel_config_controller_last_config_info", {{"hash", "h\"ash"}}));
    // Prometheus' process metrics.
    for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_virtual_memory_bytes",
                             "process_open_fds", "process_max_fds", "process_start_time_seconds"}) {
        MESSAGE(std::string(name));
        REQUIRE(find(e, name));
        CHECK(find(e, name)->value >= 0);
    }
    CHECK(e.types["process_cpu_seconds_total"] == "counter");
    CHECK(find(e, "process_resident_memory_bytes")->value > 1e6);
    CHECK(find(e, "process_start_time_seconds")->value > 1.7e9);
}
