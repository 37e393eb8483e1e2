#pragma once
// A ConstraintTemplate compiled once: its entry module and libs in an engine
// of their own (as Gatekeeper gives each template a compiler of its own, so
// packages never meet another template's), with data.inventory as data and
// `data.<package>.violation` prepared. Evaluating it for one constraint binds
// input to {"review": ..., "parameters": ...} and collects the violations as
// Gatekeeper's hook does: each result needs a `msg`, `details` defaults to {},
// and results equal in (msg, details) are one.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/gatekeeper/constraint_template.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::gatekeeper {

struct TemplateViolation {
    std::string msg;
    runtime::Value details;
};

struct EvalControl {
    std::chrono::nanoseconds timeout{0};
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::string_view)> print;  // print() output; discarded when empty
    std::uint64_t max_memory = 0;                  // EvalOptions::max_memory of each evaluation
};

struct TemplateEval {
    std::vector<TemplateViolation> violations;  // sorted as Rego sorts the hook's results
    // An evaluation error: Gatekeeper reports it as the constraint's violation.
    std::optional<std::string> eval_error;
    // A result Gatekeeper cannot read (a msg that is no string): the whole review fails.
    std::optional<std::string> review_error;
    bool cancelled = false;
};

class CompiledTemplate {
public:
    // Checks Gatekeeper's rules, compiles with `inventory` at data.inventory.
    static std::shared_ptr<const CompiledTemplate> compile(const ConstraintTemplate& source,
                                                           const runtime::Value& inventory, lang::Diagnostics& errors);

    const ConstraintTemplate& source() const { return source_; }
    TemplateEval evaluate(const runtime::Value& review, const runtime::Value& parameters, const EvalControl& control) const;

private:
    ConstraintTemplate source_;
    std::optional<PreparedQuery> query_;
};

}  // namespace gavel::gatekeeper
