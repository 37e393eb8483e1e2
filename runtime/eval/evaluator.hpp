#pragma once
// Top-down evaluation of a plan: unification and backtracking over input,
// base data and virtual documents. Each solution is passed to a continuation;
// backtracking is returning from it. One Evaluator per query evaluation: it
// owns the bindings and caches; the Program it reads is shared and immutable.

#include "support/small_vector.hpp"

#include <chrono>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/eval/eval_error.hpp"
#include "runtime/eval/tracing.hpp"
#include "runtime/eval/function_cache.hpp"
#include "runtime/eval/function_ref.hpp"
#include "runtime/eval/borrowed_values.hpp"
#include "runtime/eval/plan.hpp"
#include "runtime/scratch_array.hpp"

namespace gavel::eval {

struct EvalSettings {
    const Value* input = nullptr;
    bool strict_builtin_errors = false;
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(std::string_view)> print;
    const Value* runtime_info = nullptr;  // opa.runtime()
    Tracer* tracer = nullptr;             // see TraceEvent in engine/engine.hpp
    std::size_t max_depth = 2000;         // nested rule/function/comprehension evaluations
    std::uint64_t max_memory = 0;  // bytes the evaluating thread may gain (runtime/memory_meter.hpp); 0: no limit
};

// One solution of a query: its slots, each the bound value or null if unbound.
// The values are borrowed: they live until the sink returns.
using SolutionSink = FunctionRef<void(std::span<const Value* const> slots)>;
// Evaluated arguments and elements, borrowed (see borrowed_values.hpp).
using ValueList = BorrowedValues;

class Evaluator {
public:
    Evaluator(const Program& program, const EvalSettings& settings);

    // Runs the query; calls `sink` per solution. Returns the error that ended or
    // (strict mode) followed evaluation, if any.
    std::optional<EvalError> run(const PlannedQuery& query, SolutionSink sink);
    // Whether the evaluation read base documents (data not made by rules).
    bool read_base_data() const { return read_base_data_; }

    struct Frame;

private:
    // A data path below `data` as a walk builds it: most fit inline. Each name is a view of
    // a key that outlives the nested walk (the plan's, the rule tree's, base data's, or the
    // value a key term evaluated to, alive while its continuation runs).
    using DataPath = boost::container::small_vector<std::string_view, 8>;

    using Cont = FunctionRef<void()>;
    using ValueCont = FunctionRef<void(const Value&)>;

    void eval_body(Frame& f, const PBody& body, std::size_t i, Cont k);
    // Literals [i, end) of a body; `k` at `end` (eval_body stays the hot path's own).
    void eval_body_until(Frame& f, const PBody& body, std::size_t i, std::size_t end, Cont k);
    void check_stack(const PBody& body, std::size_t i);
    void eval_expr(Frame& f, const PExpr& e, Cont k);
    void eval_expr_plain(Frame& f, const PExpr& e, Cont k);
    void eval_term(Frame& f, const PTerm& t, ValueCont k);
    void eval_elems(Frame& f, const std::vector<PTerm>& elems, std::size_t i, ValueList& acc,
                    FunctionRef<void(ValueList&)> k);
    // Object items: acc gets key, value, key, value ...
    void eval_items(Frame& f, const std::vector<PTermPair>& items, std::size_t i, ValueList& acc,
                    FunctionRef<void(ValueList&)> k);
    void unify(Frame& f, const PTerm& a, const PTerm& b, Cont k);
    void unify_value(Frame& f, const PTerm& pattern, const Value& v, Cont k);
    bool has_unbound(const Frame& f, const PTerm& t) const;

    enum class Direct : uint8_t { Unknown, Undefined, Found };
    Direct direct_value(const Frame& f, const PTerm& t, const Value*& out) const;
    Direct direct_settled_rule(const Frame& f, const PTerm& ref, const Value*& out) const;
    Direct direct_below(const Frame& f, const Value* v, const PTerm& ref, std::size_t from, const Value*& out) const;
    void eval_ref(Frame& f, const PTerm& ref, ValueCont k);
    void each_set_literal_term(Frame& f, const PTerm& set, ValueCont each);
    void walk_value(Frame& f, const Value& v, const PTerm& ref, std::size_t i, ValueCont k, bool base_data = false);
    static const Value* ref_child(const Value& v, const Value& key, const LookupHint& hint, bool base_data);
    void walk_data(Frame& f, const DataNode* node, const Value* base, const PTerm& ref, std::size_t i, DataPath& path,
                   ValueCont k);
    bool names_child(const Frame& f, const DataNode* node, const PTerm& ref, std::size_t i) const;
    // `in_partial_document`: below rules with variable keys (`t[x] := ...`), which make their
    // node one document: the rules below add only the values they define (no empty objects).
    std::optional<Value> materialize(const DataNode* node, const Value* base, DataPath& path,
                                     bool in_partial_document = false);
    const Value* data_override(const DataPath& path) const;
    bool overridden_below(const DataPath& path) const;
    Value patch_overrides(Value doc, const DataPath& path) const;

    static Value merge_documents(const Value& a, const Value& b, std::size_t depth, bool& conflict);
    std::optional<Value> rule_value(const RuleSet& rules);
    std::optional<Value> compute_rule(const RuleSet& rules);
    void complete_rule_then(const RuleSet& rules, ValueCont k);
    void walk_complete_rule(Frame& f, const RuleSet& rules, const PTerm& ref, std::size_t i, ValueCont k);
    std::optional<Value> default_value(const PRule& rule);
    const Value* input_at(const std::vector<Value>& path) const;
    using RuleList = boost::container::small_vector<const PRule*, 8>;
    void candidate_rules(const RuleSet& rules, RuleList& out) const;
    std::optional<Value> complete_value(const RuleSet& rules, const RuleList& candidates, ValueCont first);
    bool guards_hold(const PRule& r, const ValueList* args);
    bool lookup_exits_early(const RuleSet& rules, const ValueList* args);
    void eval_rule_chain(const PRule& rule, FunctionRef<void(Frame&, const PRule&)> k);
    // Each candidate clause of a partial set or object (eval_rule_chain), the literals its
    // group shares searched once (RuleSet::shared_prefixes), when shares_prefixes().
    bool shares_prefixes(const RuleSet& rules) const { return !rules.shared_prefixes.empty() && !settings_.tracer; }
    void eval_clauses(const RuleSet& rules, const RuleList& candidates, FunctionRef<void(Frame&, const PRule&)> k);
    struct PrefixSolutions;

    void eval_call(Frame& f, const PTerm& call, ValueCont k);
    struct DirectArgs;
    // Whether a call's arguments are all known now, nested calls included, so that
    // direct_args evaluates them in order without meeting one it cannot (nothing runs here).
    bool direct_args_known(const Frame& f, const PTerm& call, std::size_t depth) const;
    bool direct_array_literal(const PTerm& arg, std::size_t depth) const;
    Direct direct_args(const Frame& f, const PTerm& call, std::size_t depth, DirectArgs& out);
    Direct direct_call(const Frame& f, const PTerm& call, Value& out, std::size_t depth = 0);
    Direct cached_call(const Frame& f, const PTerm& call, Value& out, std::size_t depth);
    void invoke(const Callee& callee, ValueList& args, const PTerm& call, ValueCont k);
    // Whether a `with` in force replaces this function or builtin by an unevaluated rule ref.
    bool replaced_by_rule_ref(const Callee& callee) const;
    void call_function(const RuleSet& fn, const ValueList& args, const PTerm& call, ValueCont k);
    // A user function's answer to arguments the cache has no answer for (`key_hash`: the
    // cache's hash of them), which it then keeps.
    std::optional<Value> run_function(const RuleSet& fn, const ValueList& args, const PTerm& call,
                                      std::uint64_t key_hash);
    void builtin_failed(const runtime::BuiltinResult& r, const std::string& name, const lang::Location& loc);

    void eval_comprehension(Frame& f, const PTerm& t, ValueCont k);
    void collect_comprehension(Frame& f, const PTerm& t, ValueCont k);
    bool repeats_unseen(const PTerm& comprehension) const;
    const Value* kept_value(const PTerm& t) const;
    void keep_value(const PTerm& t, const Value& v);
    // An indexed comprehension's answer for the values its keys have in `f` (null: not
    // all bound, or nothing for them: evaluate it as any other).
    const Value* indexed_comprehension(const Frame& f, const PTerm& t);
    // Indexed comprehensions' answers, each built on first use by evaluating its body
    // once with its keys unbound: its collections by key value (one key: that value;
    // several: an array of them), OPA's comprehension cache.
    using ComprehensionIndex = std::unordered_map<Value, Value>;
    using ComprehensionIndexes = std::unordered_map<const PTerm*, ComprehensionIndex>;
    ComprehensionIndex build_comprehension_index(const Frame& outer, const PTerm& t);
    static Value object_with_duplicates(const PTerm& t, const ValueList& values);
    void eval_with(Frame& f, const PExpr& e, Cont k);
    bool first_solution(Frame& f, FunctionRef<void(Cont)> search);

    // Tracing (only when settings_.tracer is set): the end of evaluator.cpp.
    void trace_expr(Frame& f, const PExpr& e, Cont k);
    void trace_clause(TraceOp op, const PRule& rule, Frame& f);
    struct TraceContext;
    static std::vector<std::pair<std::string, Value>> trace_bindings(const void* context);
    static std::vector<std::pair<std::string, std::optional<Value>>> trace_operands(const void* context);
    const PExpr* traced_expr_ = nullptr;  // the expression trace_expr is running (not traced again)

    [[noreturn]] void halt(std::string code, std::string message, const lang::Location& loc);
    // Counts work (expressions, and the size of what builtins return) and looks
    // at the clock each 1,024 units: a deadline holds however the time is spent.
    void tick(uint32_t work = 1);
    [[noreturn]] void cancelled();  // the deadline, the caller or the memory limit ended the query

    const Program& program_;
    EvalSettings settings_;
    // Bindings point at values, so what these point at must stay where it is
    // while evaluation runs: the caller's input, and the `with` values held by
    // the eval_with call that installed them (null: no input / a mock function).
    const Value* input_ = nullptr;
    std::vector<std::pair<std::vector<std::string>, const Value*>> data_overrides_;
    // A replaced function's replacement: another function, a value, or a deferred ref (PWith).
    struct FunctionOverride {
        std::shared_ptr<const Callee> function;
        const Value* value = nullptr;
        const PTerm* deferred = nullptr;
    };
    std::map<std::string, FunctionOverride> function_overrides_;

    struct RuleCache {
        enum class State : uint8_t { Unknown, InProgress, Done } state = State::Unknown;
        std::optional<Value> value;
    };
    // Inline for programs of a few rules (most admission policies): no allocation per evaluation.
    using RuleCaches = boost::container::small_vector<RuleCache, 8>;
    RuleCaches cache_;
    FunctionCache function_cache_;
    ComprehensionIndexes comprehension_indexes_;  // as the rule cache: one per `with` context
    // Closed comprehensions' and calls' values (PBody::closed, PTerm::closed), as the
    // indexes: one set per `with` context, a few per query, inline.
    using KeptValues = boost::container::small_vector<std::pair<const PTerm*, Value>, 4>;
    KeptValues kept_values_;
    std::optional<EvalError> first_builtin_error_;
    runtime::BuiltinContext builtin_context_;
    const lang::Location* traced_call_ = nullptr;  // with a tracer: the builtin call running now
    runtime::ScratchArray scratch_array_;          // direct_call's array-literal argument
    std::size_t depth_ = 0;
    uintptr_t stack_floor_ = 0;  // runtime/stack_limit.hpp: below it, evaluation stops with an error
    // Set when a search has what it needs (`not`, `every`): every generator
    // stops iterating and returns, up to the search that set it, which clears it.
    bool cut_ = false;
    bool read_base_data_ = false;  // a base document was read (OPA times its storage reads)
    uint32_t ticks_ = 0;
};

}  // namespace gavel::eval
