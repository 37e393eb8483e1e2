#include "cli/eval_profile.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "support/go_float.hpp"

namespace gavel::cli {

std::string ExprStats::location() const {
    if (!file.empty()) return file + ":" + std::to_string(line);
    return text;
}

void Profiler::charge_previous(std::chrono::steady_clock::time_point now) {
    if (!previous_.active) return;
    auto key = std::make_pair(previous_.file, previous_.line);
    auto [it, fresh] = lines_.try_emplace(key);
    ExprStats& s = it->second;
    if (fresh) {
        s.file = previous_.file;
        s.line = previous_.line;
        s.col = previous_.col;
        s.text = previous_.text;
    }
    s.time_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(now - previous_.start).count();
    (previous_.op == TraceOp::Eval ? s.num_eval : s.num_redo) += 1;
    columns_[key].insert(previous_.col);
}

void Profiler::trace(const TraceEvent& event) {
    if (event.op != TraceOp::Eval && event.op != TraceOp::Redo) return;
    auto now = std::chrono::steady_clock::now();
    charge_previous(now);
    previous_.file = std::string(event.file);
    previous_.line = event.line;
    previous_.col = event.col;
    previous_.text = std::string(event.text.substr(0, event.text.find('\n')));
    previous_.op = event.op;
    previous_.start = now;
    previous_.active = true;
}

const std::vector<std::string>& default_profile_sort() {
    static const std::vector<std::string> order = {"total_time_ns", "num_eval", "num_redo", "file", "line"};
    return order;
}

std::vector<std::string> profile_sort_order(const std::vector<std::string>& given) {
    std::vector<std::string> order = given;
    for (const auto& c : default_profile_sort())
        if (std::find(given.begin(), given.end(), c) == given.end()) order.push_back(c);
    return order;
}

std::vector<ExprStats> Profiler::report(int limit, const std::vector<std::string>& criteria) {
    charge_previous(std::chrono::steady_clock::now());
    previous_.active = false;
    std::vector<ExprStats> stats;
    for (auto& [key, s] : lines_) {
        s.num_gen_expr = static_cast<int64_t>(columns_[key].size());
        stats.push_back(s);
    }
    using Greater = std::function<bool(const ExprStats&, const ExprStats&)>;
    std::vector<Greater> order;
    for (const auto& c : criteria) {
        if (c == "total_time_ns") order.push_back([](auto& a, auto& b) { return a.time_ns > b.time_ns; });
        else if (c == "num_eval") order.push_back([](auto& a, auto& b) { return a.num_eval > b.num_eval; });
        else if (c == "num_redo") order.push_back([](auto& a, auto& b) { return a.num_redo > b.num_redo; });
        else if (c == "num_gen_expr") order.push_back([](auto& a, auto& b) { return a.num_gen_expr > b.num_gen_expr; });
        else if (c == "file") order.push_back([](auto& a, auto& b) { return a.file > b.file; });
        else if (c == "line") order.push_back([](auto& a, auto& b) { return a.line > b.line; });
    }
    if (order.empty()) return stats;  // OPA: no known criterion, no sorting and no limit
    std::stable_sort(stats.begin(), stats.end(), [&](const ExprStats& a, const ExprStats& b) {
        for (const auto& greater : order) {
            if (greater(a, b)) return true;
            if (greater(b, a)) return false;
        }
        return false;
    });
    if (limit > 0 && static_cast<std::size_t>(limit) < stats.size()) stats.resize(static_cast<std::size_t>(limit));
    return stats;
}

namespace {

double percentile(const std::vector<int64_t>& sorted, double p) {
    const double size = static_cast<double>(sorted.size());
    double pos = p * (size + 1);
    if (pos < 1.0) return static_cast<double>(sorted.front());
    if (pos >= size) return static_cast<double>(sorted.back());
    double lower = static_cast<double>(sorted[static_cast<std::size_t>(pos) - 1]);
    double upper = static_cast<double>(sorted[static_cast<std::size_t>(pos)]);
    return lower + (pos - std::floor(pos)) * (upper - lower);
}

}  // namespace

bool statistic_is_float(const std::string& key) { return key != "count" && key != "min" && key != "max"; }

std::vector<std::pair<std::string, std::string>> statistics(std::vector<int64_t> values) {
    std::vector<std::pair<std::string, std::string>> out;
    if (values.empty()) return out;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (int64_t v : values) sum += static_cast<double>(v);
    const double mean = sum / static_cast<double>(values.size());
    double squares = 0;
    for (int64_t v : values) squares += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
    const double stddev = std::sqrt(squares / static_cast<double>(values.size()));
    // encoding/json writes a map's keys sorted.
    out = {{"75%", support::go_json_float(percentile(values, 0.75))},
           {"90%", support::go_json_float(percentile(values, 0.9))},
           {"95%", support::go_json_float(percentile(values, 0.95))},
           {"99%", support::go_json_float(percentile(values, 0.99))},
           {"99.9%", support::go_json_float(percentile(values, 0.999))},
           {"99.99%", support::go_json_float(percentile(values, 0.9999))},
           {"count", std::to_string(values.size())},
           {"max", std::to_string(values.back())},
           {"mean", support::go_json_float(mean)},
           {"median", support::go_json_float(percentile(values, 0.5))},
           {"min", std::to_string(values.front())},
           {"stddev", support::go_json_float(stddev)}};
    return out;
}

std::string go_number_text(const std::string& json_number, bool is_float) {
    if (!is_float) return json_number;
    // %v of a float64 is %g with the shortest digits.
    return support::go_format_g(std::strtod(json_number.c_str(), nullptr));
}

}  // namespace gavel::cli
