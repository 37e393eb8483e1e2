#pragma once
// The partial evaluator's internals, shared by its translation units
// (evaluator.cpp: expressions, unification, calls, negation, `with`,
// `every`, comprehensions; eval_refs.cpp: references into data, rules and
// values). Names follow OPA's eval.go so the two can be read side by side.

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/partial/copy_propagation.hpp"
#include "engine/partial/evaluator.hpp"
#include "engine/partial/rule_index.hpp"
#include "runtime/builtin.hpp"

namespace gavel::partial {

using Iter = eval::FunctionRef<void()>;
struct Frame;
using EvalIter = eval::FunctionRef<void(Frame&)>;

// Ends the run with an error (OPA's error values, thrown up to partial_run).
struct Halt {
    EvalError error;
};
EvalError make_error(std::string code, std::string message, const lang::Location& loc);
[[noreturn]] void halt(std::string code, std::string message, const lang::Location& loc = {});

// One query or rule body being evaluated (OPA's eval struct): children share
// the evaluator, each has its own position and usually its own bindings.
struct Frame {
    Bindings* bindings = nullptr;
    const Body* query = nullptr;
    std::size_t index = 0;
    uint64_t query_id = 0;
    TermPtr input;  // the input document as `with` left it (null: none)
    TermPtr data;   // `with` replacements of data (null: none)
    int genvarid = 0;
    const lang::Expr& expr() const { return (*query)[index]; }
};

// OPA's virtual cache: values of rules by their (plugged) ref, one scope per `with`.
class VirtualCache {
public:
    VirtualCache() : stack_(1) {}
    void push() { stack_.emplace_back(); }
    void pop() { stack_.pop_back(); }
    // found: there is an entry; value null with found: known to be undefined.
    std::pair<TermPtr, bool> get(const std::vector<TermPtr>& ref) const;
    void put(const std::vector<TermPtr>& ref, TermPtr value);

private:
    struct Entry {
        TermPtr value;
        bool undefined = false;
    };
    std::vector<std::map<std::string, Entry>> stack_;
};

// A key for terms compared by value (OPA's TermValueEqual); vars of a
// scope marker compare equal to each other.
std::string term_key(const Term& t, bool any_var);

// OPA's Rule.Compare for support rules: head (args, ref, name, key, value), default, body.
int compare_support_rules(const SupportRule& a, const SupportRule& b);

class Evaluator {
public:
    Evaluator(const Program& program, const Options& options);
    Result run(const Body& query);

    // ---- evaluation of bodies and expressions (evaluator.cpp) ----
    void eval(Frame& e, EvalIter iter);
    void next(Frame& e, EvalIter iter);
    void eval_step(Frame& e, EvalIter iter);
    void eval_not(Frame& e, EvalIter iter);
    void eval_not_partial(Frame& e, EvalIter iter);
    void eval_not_partial_support(Frame& e, uint64_t negation_id, const lang::Expr& expr, compiler::VarSet unknowns,
                                  const std::vector<Body>& queries, EvalIter iter);
    void eval_with(Frame& e, EvalIter iter);
    void eval_call(Frame& e, const std::vector<TermPtr>& terms, Iter iter);
    void eval_call_value(Frame& e, std::size_t arity, const std::vector<TermPtr>& terms, const TermPtr& mock,
                         Iter iter);
    void eval_builtin(Frame& e, const runtime::Builtin& bi, const lang::BuiltinDecl& decl,
                      const std::vector<TermPtr>& terms, Iter iter);
    void eval_every(Frame& e, const lang::Expr& expr, Iter iter);

    Frame child(const Frame& e, const Body& query);
    Frame closure(const Frame& e, const Body& query);

    // ---- unification ----
    void unify(Frame& e, const TermPtr& a, const TermPtr& b, Iter iter) {
        biunify(e, a, b, e.bindings, e.bindings, iter);
    }
    void biunify(Frame& e, TermPtr a, TermPtr b, Bindings* b1, Bindings* b2, Iter iter);
    void biunify_arrays(Frame& e, const Term& a, const Term& b, Bindings* b1, Bindings* b2, Iter iter, std::size_t i);
    void biunify_terms(Frame& e, const std::vector<TermPtr>& a, const std::vector<TermPtr>& b, Bindings* b1,
                       Bindings* b2, Iter iter, std::size_t i = 0);
    void biunify_objects(Frame& e, TermPtr a, TermPtr b, Bindings* b1, Bindings* b2, Iter iter);
    void biunify_values(Frame& e, TermPtr a, TermPtr b, Bindings* b1, Bindings* b2, Iter iter);
    void biunify_ref(Frame& e, const TermPtr& a, const TermPtr& b, Bindings* b1, Bindings* b2, Iter iter);
    void biunify_comprehension(Frame& e, const TermPtr& a, const TermPtr& b, Bindings* b1, Bindings* b2, bool swap,
                               Iter iter);
    void biunify_comprehension_partial(Frame& e, const TermPtr& a, TermPtr b, Bindings* b1, Bindings* b2, bool swap,
                                       Iter iter);
    TermPtr amend_comprehension(Frame& e, const TermPtr& a, Bindings* b1);
    void biunify_rule_head(Frame& e, std::size_t pos, const Term& ref, const Rule& rule, Bindings* ref_bindings,
                           Bindings* rule_bindings, eval::FunctionRef<void(std::size_t)> iter);
    void biunify_dynamic_ref(Frame& e, std::size_t pos, const std::vector<TermPtr>& a, const std::vector<TermPtr>& b,
                             Bindings* b1, Bindings* b2, eval::FunctionRef<void(std::size_t)> iter);

    // ---- saving ----
    void save_expr(Frame& e, lang::Expr expr, Bindings* b, Iter iter);
    void save_expr_mark_unknowns(Frame& e, lang::Expr expr, Bindings* b, Iter iter);
    void save_unify(Frame& e, const TermPtr& a, const TermPtr& b, Bindings* b1, Bindings* b2, Iter iter);
    void save_call(Frame& e, int decl_args, std::vector<TermPtr> terms, Iter iter);
    void save_inlined_negated_exprs(Frame& e, std::vector<lang::Expr> exprs, Iter iter);
    void update_from_query(const Frame& e, lang::Expr& expr);
    std::vector<lang::With> update_saved_mocks(const std::vector<lang::With>& withs) const;
    int decl_args_len(Frame& e, const lang::Expr& x);
    // A term or an expression that needs saving: unknown, or reaching rules that are (OPA's saveRequired).
    bool unknown(const TermPtr& t, Bindings* b);
    bool unknown_expr(const lang::Expr& x, Bindings* b);
    bool unknown_body(const Body& x, Bindings* b);
    bool unknown_ref(const TermPtr& ref, Bindings* b) { return unknown(ref, b); }

    // ---- rules and data (eval_refs.cpp) ----
    IndexResult get_rules(Frame& e, const Term& ref);
    Resolved resolve(Frame& e, const Term& ref);
    TermPtr namespace_ref(const Term& ref) const;
    TermPtr generate_var(const std::string& suffix) const { return make_var("$_" + suffix); }
    void eval_func(Frame& e, const std::vector<TermPtr>& terms, const IndexResult& ir, Iter iter);
    bool passes_type_check(const Body& body) const;

    bool is_function(const Term& ref) const { return program_.is_function(ref); }

    const Program& program_;
    const Options& options_;
    std::deque<Bindings> bindings_arena_;
    uint64_t next_query_id_ = 0;
    Bindings* caller_ = nullptr;  // the query's bindings: what saved variables are named for
    SaveSet save_set_;
    SaveStack save_stack_;
    SaveSupport save_support_;
    InliningControl inlining_;
    std::vector<std::vector<TermPtr>> target_stack_;                       // refs `with` replaced
    std::vector<std::vector<std::map<std::string, TermPtr>>> mock_stack_;  // function mocks by name
    VirtualCache virtual_cache_;
    std::map<std::string, TermPtr> base_cache_;  // data documents as terms, by path
    bool read_base_data_ = false;                // base documents were read (OPA times that: external_resolve)
    runtime::BuiltinContext builtin_context_;
    std::vector<EvalError> builtin_errors_;
    std::size_t steps_ = 0;

    Bindings* new_bindings(uint64_t id) { return &bindings_arena_.emplace_back(id); }
    uint64_t next_query_id() { return next_query_id_++; }
    void check_cancelled(const Frame& e);
    bool targets_prefixed(const Term& ref) const;
    std::pair<TermPtr, bool> mock(const Term& ref) const;
};

}  // namespace gavel::partial
