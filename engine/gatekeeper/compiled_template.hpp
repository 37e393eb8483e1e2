#pragma once
// A ConstraintTemplate compiled once: its entry module and libs in an engine
// of their own (as Gatekeeper gives each template a compiler of its own, so
// packages never meet another template's), with data.inventory as data.
//
// Evaluating it for the matching constraints of a review binds input to
// {"review": ..., "parameters": ...} for each and collects the violations as
// Gatekeeper's hook does: each result needs a `msg`, `details` defaults to {},
// and results equal in (msg, details) are one. Gatekeeper queries a template
// once for all its constraints (its hook iterates them with `with input`), so
// an evaluation error ends that query: it is every constraint's violation, and
// so it is here. gavel runs the prepared query per constraint instead, which
// costs less than the hook's `with` (test/bench/bench_gatekeeper.cpp,
// BM_GatekeeperOneTemplateManyConstraints) and decides the same.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <span>
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
    std::uint64_t max_memory = 0;                 // EvalOptions::max_memory of each evaluation
};

struct TemplateEval {
    // Per constraint, in the order of the parameters given; each sorted as Rego sorts the hook's results.
    std::vector<std::vector<TemplateViolation>> violations;
    // An evaluation error: Gatekeeper reports it as each constraint's violation.
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
    // Whether its Rego reads data.inventory (else it need not be compiled again when the inventory changes).
    bool reads_inventory() const { return reads_inventory_; }
    // The violations of the constraints whose parameters are `parameters` (as one query of Gatekeeper's).
    TemplateEval evaluate(const runtime::Value& review, std::span<const runtime::Value> parameters,
                          const EvalControl& control) const;

private:
    ConstraintTemplate source_;
    bool reads_inventory_ = true;
    std::optional<PreparedQuery> query_;
};

}  // namespace gavel::gatekeeper
