#pragma once
// Partial evaluation: OPA's topdown evaluator (v1/topdown/eval.go) with a
// save set, step for step, so that what it saves — and so the residual
// queries and support rules it returns, their order and the names of their
// variables — is what OPA returns. It evaluates what is known and saves
// what depends on the unknowns: expressions on the save stack become the
// residual queries; rules that cannot be inlined (defaults, functions,
// partial sets, `--disable-inlining`) become support rules.
//
// It is a second evaluator on purpose: it works on AST terms (the residue
// is a program), where the normal evaluator works on planned slots and
// values; keeping them apart keeps the normal one fast.

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ast/var_set.hpp"
#include "engine/partial/bindings.hpp"
#include "engine/partial/program.hpp"
#include "engine/partial/save.hpp"
#include "runtime/eval/eval_error.hpp"
#include "runtime/eval/function_ref.hpp"

namespace gavel::partial {

struct Options {
    std::vector<TermPtr> unknowns;          // refs (or vars); empty: `input`
    std::vector<TermPtr> disable_inlining;  // refs
    bool shallow_inlining = false;
    bool nondeterministic_builtins = false;  // evaluate them when their operands are known
    bool rule_indexing = true;               // false: every rule is evaluated (OPA's EvalRuleIndexing(false))
    std::string partial_namespace = "partial";
    TermPtr input;                         // null: no input
    const runtime::Value* data = nullptr;  // base documents
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::string_view)> print;
    bool strict_builtin_errors = false;
};

struct Result {
    std::vector<Body> queries;
    std::vector<SupportModule> support;
    std::optional<EvalError> error;
    bool read_base_data = false;
};

// Partially evaluates a compiled query (OPA's Query.PartialRun).
Result partial_run(const Program& program, const Body& query, const Options& options);

}  // namespace gavel::partial
