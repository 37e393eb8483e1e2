#include "webhook/prometheus_text.hpp"

#include <cmath>

#include "support/go_float.hpp"

namespace gavel::webhook {

std::string prometheus_number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    if (v == 0) return "0";
    return support::go_format_g(v);
}

std::string prometheus_label_value(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out.push_back(c);
    }
    return out;
}

const std::vector<double>& prometheus_default_buckets() {
    static const std::vector<double> buckets = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
    return buckets;
}

void HistogramSeries::observe(const std::vector<double>& bounds, double v) {
    for (std::size_t i = 0; i < bounds.size(); ++i)
        if (v <= bounds[i]) {
            ++buckets[i];
            break;
        }
    ++count;
    sum += v;
}

void render_histogram(std::string& out, std::string_view name, std::string_view labels,
                      const std::vector<double>& bounds, const HistogramSeries& series) {
    std::string prefix(name);
    std::string sep = labels.empty() ? "" : ",";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < bounds.size(); ++i) {
        cumulative += series.buckets[i];
        out += prefix + "_bucket{" + std::string(labels) + sep + "le=\"" + prometheus_number(bounds[i]) + "\"} " +
               prometheus_number(static_cast<double>(cumulative)) + "\n";
    }
    std::string count = prometheus_number(static_cast<double>(series.count));
    out += prefix + "_bucket{" + std::string(labels) + sep + "le=\"+Inf\"} " + count + "\n";
    std::string braces = labels.empty() ? "" : '{' + std::string(labels) + "}";
    out += prefix + "_sum" + braces + " " + prometheus_number(series.sum) + "\n";
    out += prefix + "_count" + braces + " " + count + "\n";
}

void render_family_header(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
}

bool histogram_bounds(const runtime::Value& list, std::string_view where, std::vector<double>& out,
                      std::string& error) {
    out.clear();
    if (!list.is_array()) {
        error = std::string(where) + ": want a list of numbers";
        return false;
    }
    for (const auto& v : list.array_elements()) {
        if (!v.is_number()) {
            error = std::string(where) + ": want a list of numbers";
            return false;
        }
        out.push_back(v.as_number().to_double());
    }
    if (!out.empty() && std::isinf(out.back()) && out.back() > 0) out.pop_back();  // the +Inf bucket is implicit
    for (std::size_t i = 0; i + 1 < out.size(); ++i)
        if (!(out[i] < out[i + 1])) {
            char text[128];
            std::snprintf(text, sizeof text, "histogram buckets must be in increasing order: %f >= %f", out[i],
                          out[i + 1]);
            error = std::string(where) + ": " + text;
            return false;
        }
    if (out.empty()) out = prometheus_default_buckets();
    return true;
}

}  // namespace gavel::webhook
