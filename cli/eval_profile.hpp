#pragma once
// `gavel eval --profile`, as OPA's profiler measures: the time between one
// expression step (Eval or Redo) and the next is charged to the first, summed
// per source line; each line counts its Eval and Redo steps and the distinct
// expressions evaluated there (OPA's num_gen_expr counts the compiler's
// expressions of the line; gavel counts the distinct columns, see README).
// With --count N, per-run figures are aggregated into OPA's statistics.

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.hpp"

namespace gavel::cli {

struct ExprStats {
    std::string file;  // empty for the query's own expressions
    uint32_t line = 0;
    uint32_t col = 0;
    std::string text;  // the first expression's text: the location of a query expression
    int64_t time_ns = 0;
    int64_t num_eval = 0;
    int64_t num_redo = 0;
    int64_t num_gen_expr = 0;
    // OPA's Location.String(): "file:row", or a query expression's text.
    std::string location() const;
};

class Profiler final : public Tracer {
public:
    void trace(const TraceEvent& event) override;
    // The lines sorted by `criteria` (total_time_ns, num_eval, num_redo,
    // num_gen_expr, file, line: all descending, as OPA's), the first `limit`
    // (all when limit <= 0). Ends the current step's timing.
    std::vector<ExprStats> report(int limit, const std::vector<std::string>& criteria);

private:
    void charge_previous(std::chrono::steady_clock::time_point now);
    struct Pending {
        std::string file;
        uint32_t line = 0, col = 0;
        std::string text;
        TraceOp op = TraceOp::Eval;
        std::chrono::steady_clock::time_point start;
        bool active = false;
    } previous_;
    std::map<std::pair<std::string, uint32_t>, ExprStats> lines_;
    std::map<std::pair<std::string, uint32_t>, std::set<uint32_t>> columns_;
};

// OPA's default order, and --profile-sort criteria completed with the default ones not named.
const std::vector<std::string>& default_profile_sort();
std::vector<std::string> profile_sort_order(const std::vector<std::string>& given);

// metrics.Statistics(values): Go's map of count, min, max, mean, stddev, median
// and the 75/90/95/99/99.9/99.99 percentiles (as go-metrics computes them), as
// (key, JSON number text) pairs in the order encoding/json writes a map: sorted keys.
std::vector<std::pair<std::string, std::string>> statistics(std::vector<int64_t> values);
// Go's %v of one of those numbers (float64 as %g, shortest; int64 as is).
std::string go_number_text(const std::string& json_number, bool is_float);
// Which statistics are float64 in Go (everything but count, min and max).
bool statistic_is_float(const std::string& key);

}  // namespace gavel::cli
