#pragma once
// OPA's pretty trace (topdown.PrettyTraceWithLocation), as the REPL's `trace`,
// `opa eval --explain` and `opa test --explain` print it: the location
// (query:LINE or FILE:LINE) in a column 4 wider than the longest, a bar per
// nesting level, the step and the expression:
//
//   query:1     Enter input.request.kind.kind == "Deployment"
//   query:1     | Eval input.request.kind.kind == "Deployment"
//   query:1     | Fail input.request.kind.kind == "Deployment"  # input.request.kind.kind = "Pod"
//
// As in OPA, the query itself is the outermost step (its lines start with one bar) when
// the printer is given the query text. Steps can be kept selectively afterwards
// (`--explain notes|fails`): the chosen steps with the Enter steps that lead to them.

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace gavel::cli::repl {

class TracePrinter final : public Tracer {
public:
    // Maps the text of a query expression (at line/col of the prepared query) back to what was typed.
    using QueryText = std::function<std::string(uint32_t line, uint32_t col, std::string_view text)>;
    // With `query`, a first step `Enter <query>` frames the trace as OPA's does.
    explicit TracePrinter(std::string query = {}, QueryText query_text = {});

    void trace(const TraceEvent& event) override;

    // Keeps the steps of the kinds in `ops` and, before each, the Enter steps of
    // the rules it is nested in that were not shown yet (OPA's lineage.Filter).
    void keep_lineage_of(std::initializer_list<TraceOp> ops);

    // The steps recorded, one per line.
    std::string text() const;
    struct Step {
        TraceOp op;
        std::string file;  // empty: the query
        uint32_t line = 0;
        uint32_t col = 0;
        uint32_t depth = 0;  // 0: the query's own Enter
        std::string text;    // the expression (or note), shown after the op
        std::string why;     // a Fail's operand values, shown after the text
    };
    const std::vector<Step>& steps() const { return steps_; }

private:
    std::vector<Step> steps_;
    QueryText query_text_;
};

}  // namespace gavel::cli::repl
