#include "cli/repl/trace_printer.hpp"

#include <algorithm>
#include <map>

#include "cli/repl/result_printer.hpp"
#include "runtime/json.hpp"

namespace gavel::cli::repl {

namespace {

constexpr std::size_t kColumnPadding = 4;  // OPA's columnPadding

std::string first_line(std::string s) {
    if (auto nl = s.find('\n'); nl != std::string::npos) s = s.substr(0, nl) + " ...";
    return s;
}

}  // namespace

TracePrinter::TracePrinter(std::string query, QueryText query_text) : query_text_(std::move(query_text)) {
    if (!query.empty()) steps_.push_back({TraceOp::Enter, "", 1, 1, 0, first_line(std::move(query)), ""});
}

void TracePrinter::trace(const TraceEvent& event) {
    Step step;
    step.op = event.op;
    step.file = std::string(event.file);
    step.line = event.line;
    step.col = event.col;
    // Below the query's own Enter when there is one.
    step.depth = event.depth + (steps_.empty() || steps_.front().depth != 0 ? 0 : 1);
    step.text =
        event.file.empty() && query_text_ ? query_text_(event.line, event.col, event.text) : std::string(event.text);
    if (event.op == TraceOp::Note) step.text = runtime::to_json(runtime::Value::string(step.text));  // Go's %q
    step.text = first_line(std::move(step.text));
    // Why an expression failed: its operands' values where it failed.
    if (event.op == TraceOp::Fail) {
        std::vector<std::string> shown;
        for (const auto& [operand, value] : event.operands()) {
            std::string v = value ? compact_json(*value) : std::string("undefined");
            if (v == operand) continue;  // a constant says nothing new
            if (std::find(shown.begin(), shown.end(), operand) != shown.end()) continue;
            shown.push_back(operand);
            step.why += (step.why.empty() ? "  # " : "; ") + operand + " = " + v;
        }
        step.why = first_line(std::move(step.why));
    }
    steps_.push_back(std::move(step));
}

void TracePrinter::keep_lineage_of(std::initializer_list<TraceOp> ops) {
    std::vector<Step> kept;
    std::map<uint32_t, std::size_t> open;  // depth -> the Enter step not shown yet
    for (std::size_t i = 0; i < steps_.size(); ++i) {
        const Step& s = steps_[i];
        if (std::find(ops.begin(), ops.end(), s.op) != ops.end()) {
            // The Enter steps above this one not shown yet, outermost first.
            std::vector<std::size_t> chain;
            for (int64_t d = s.depth; d >= 0; --d)
                if (auto it = open.find(static_cast<uint32_t>(d)); it != open.end()) chain.push_back(it->second);
            for (auto it = chain.rbegin(); it != chain.rend(); ++it) kept.push_back(steps_[*it]);
            kept.push_back(s);
            open.clear();
        }
        if (s.op == TraceOp::Enter) {
            open.erase(open.lower_bound(s.depth), open.end());
            open[s.depth] = i;
        }
    }
    steps_ = std::move(kept);
}

std::string TracePrinter::text() const {
    auto location = [](const Step& s) {
        return (s.file.empty() ? std::string("query") : s.file) + ":" + std::to_string(s.line);
    };
    std::size_t width = 0;
    for (const auto& s : steps_) width = std::max(width, location(s).size());
    width += kColumnPadding;
    std::string out;
    for (const auto& s : steps_) {
        std::string loc = location(s);
        out += loc + std::string(width - loc.size() + 1, ' ');
        // Enter steps sit at their rule's depth; everything else one bar deeper.
        uint32_t bars = s.op == TraceOp::Enter ? s.depth : s.depth + 1;
        for (uint32_t d = 1; d < bars; ++d) out += "| ";
        out += std::string(to_string(s.op)) + " " + s.text + s.why + "\n";
    }
    return out;
}

}  // namespace gavel::cli::repl
