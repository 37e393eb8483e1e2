#pragma once
// The REPL's `trace` output: one line per evaluation step, as OPA's pretty
// trace shows it — the location (query:LINE or FILE:LINE, padded to one
// width), a bar per nesting level, the step and the expression:
//
//   query:1 Enter input.request.kind.kind == "Deployment"
//   query:1 | Eval input.request.kind.kind == "Deployment"
//   query:1 | Fail input.request.kind.kind == "Deployment"  # input.request.kind.kind = "Pod"
//
// As in OPA, the query itself is the outermost step (its lines start with one bar) when
// the printer is given the query text.

#include <functional>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace gavel::cli::repl {

class TracePrinter final : public Tracer {
public:
    // Maps the text of a query expression (at line/col of the prepared query) back to what was typed.
    using QueryText = std::function<std::string(uint32_t line, uint32_t col, std::string_view text)>;
    // With `query`, a first step `Enter <query>` frames the trace as OPA's does.
    explicit TracePrinter(std::string query = {}, QueryText query_text = {})
        : query_(std::move(query)), query_text_(std::move(query_text)) {}

    void trace(const TraceEvent& event) override;
    std::string text() const;

private:
    struct Line {
        std::string location;
        uint32_t depth;
        std::string step;
    };
    std::vector<Line> lines_;
    std::string query_;
    QueryText query_text_;
};

}  // namespace gavel::cli::repl
