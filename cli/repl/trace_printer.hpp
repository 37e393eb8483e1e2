#pragma once
// The REPL's `trace` output: one line per evaluation step, as OPA's pretty
// trace shows it — the location (query:LINE or FILE:LINE, padded to one
// width), a bar per nesting level, the step and the expression:
//
//   query:1     Enter input.request.kind.kind == "Pod"
//   query:1     | Eval input.request.kind.kind == "Pod"
//   query:1     | Fail input.request.kind.kind == "Pod"

#include <string>
#include <vector>

#include "runtime/engine.hpp"

namespace gavel::cli::repl {

class TracePrinter final : public Tracer {
public:
    void trace(const TraceEvent& event) override;
    std::string text() const;

private:
    struct Line {
        std::string location;
        uint32_t depth;
        std::string step;
    };
    std::vector<Line> lines_;
};

}  // namespace gavel::cli::repl
