#include "cli/repl/trace_printer.hpp"

#include <algorithm>

#include "cli/repl/result_printer.hpp"

namespace gavel::cli::repl {

void TracePrinter::trace(const TraceEvent& event) {
    std::string location = (event.file.empty() ? std::string("query") : std::string(event.file)) + ":" +
                           std::to_string(event.line);
    std::string text = event.file.empty() && query_text_ ? query_text_(event.line, event.col, event.text)
                                                         : std::string(event.text);
    std::string step = std::string(to_string(event.op)) + " " + text;
    // Why an expression failed: its operands' values where it failed.
    if (event.op == TraceOp::Fail) {
        auto operands = event.operands();
        if (!operands.empty()) {
            step += "  #";
            bool shown = false;
            for (const auto& [operand, value] : operands) {
                std::string v = value ? compact_json(*value) : std::string("undefined");
                if (v == operand) continue;  // a constant says nothing new
                step += " " + operand + " = " + v + ";";
                shown = true;
            }
            if (shown) step.pop_back();
            else step.resize(step.size() - 3);
        }
    }
    // Keep the line readable: the first line of a multi-line text.
    if (auto nl = step.find('\n'); nl != std::string::npos) step = step.substr(0, nl) + " ...";
    lines_.push_back({std::move(location), event.depth + (query_.empty() ? 0 : 1), std::move(step)});
}

std::string TracePrinter::text() const {
    std::vector<Line> lines;
    if (!query_.empty()) {
        std::string first_line = query_.substr(0, query_.find('\n'));
        lines.push_back({"query:1", 0, "Enter " + first_line + (first_line.size() < query_.size() ? " ..." : "")});
    }
    lines.insert(lines.end(), lines_.begin(), lines_.end());
    std::size_t width = 0;
    for (const auto& l : lines) width = std::max(width, l.location.size());
    std::string out;
    for (const auto& l : lines) {
        out += l.location + std::string(width - l.location.size() + 1, ' ');
        for (uint32_t d = 0; d < l.depth; ++d) out += "| ";
        out += l.step + "\n";
    }
    return out;
}

}  // namespace gavel::cli::repl
