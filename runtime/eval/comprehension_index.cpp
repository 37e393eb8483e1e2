#include "runtime/eval/comprehension_index.hpp"

#include <optional>
#include <unordered_map>

#include "compiler/ast/output_vars.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"

namespace gavel::eval {

namespace {

using compiler::VarSet;
using lang::Body;
using lang::Expr;
using lang::ExprKind;
using lang::Term;
using lang::TermKind;

const VarSet& reserved_vars() {
    static const VarSet reserved{"input", "data"};
    return reserved;
}

// OPA's comprehensionIndexRegressionCheckVisitor: a ref of the body that looks up by an
// outer variable before the body binds it (`data.d[x]` with x outer), or `walk` given an
// outer variable as its output, would be a lookup made into a scan: not indexed. Terms in
// OPA's visiting order, nested comprehensions left out.
bool lookups_by_candidates(const Body& body, const VarSet& candidates) {
    VarSet seen;
    bool worse = false;
    auto check = [&](const VarSet& vars) {
        for (const auto& v : vars)
            if (candidates.count(v) && !seen.count(v)) worse = true;
    };
    lang::walk_terms_in_body(body, [&](const Term& t) {
        if (worse || compiler::is_comprehension(t)) return true;
        if (t.kind == TermKind::Call && t.elems.size() > 2 && t.call_name() == "walk") {
            check(compiler::vars_of(*t.elems[2]));
        } else if (t.kind == TermKind::Ref) {
            compiler::VarVisitorParams outputs;
            outputs.skip_ref_head = true;
            check(compiler::vars_of(t, outputs));
        } else if (t.kind == TermKind::Var) {
            seen.insert(t.text);
        }
        return worse;
    });
    return worse;
}

// OPA's comprehensionIndexNestedCandidateVisitor: a comprehension nested in the body that
// names an outer variable could not be evaluated without the outer bindings.
bool nested_closes_over(const Body& body, const VarSet& candidates) {
    bool found = false;
    lang::walk_terms_in_body(body, [&](const Term& t) {
        if (found) return true;
        if (!compiler::is_comprehension(t)) return false;
        compiler::VarVisitorParams params;
        params.skip_ref_head = true;
        for (const auto& v : compiler::vars_of(t, params))
            if (candidates.count(v)) found = true;
        return true;
    });
    return found;
}

// The comprehension of a literal `v = <comprehension>` (either way round, not negated, no
// `with`): the only literals OPA indexes.
const Term* assigned_comprehension(const Expr& e) {
    if (e.kind != ExprKind::Term || e.negated || !e.withs.empty() || !compiler::is_equality(e) ||
        compiler::operand_count(e) != 2)
        return nullptr;
    const Term& lhs = *compiler::operand(e, 0);
    const Term& rhs = *compiler::operand(e, 1);
    const Term* comprehension = lhs.kind == TermKind::Var && compiler::is_comprehension(rhs)   ? &rhs
                                : rhs.kind == TermKind::Var && compiler::is_comprehension(lhs) ? &lhs
                                                                                               : nullptr;
    return comprehension && comprehension->body ? comprehension : nullptr;
}

// `f(v)` for each variable term `v` below `t` (nested bodies included) but the operator of a
// call (`eq`, `count`: names of functions).
template <class F>
void each_variable(const Term& t, F&& f) {
    lang::walk_terms(t, [&](const Term& x) {
        if (x.kind == TermKind::Call && !x.elems.empty()) {
            for (std::size_t i = 1; i < x.elems.size(); ++i) each_variable(*x.elems[i], f);
            return true;
        }
        if (x.kind == TermKind::Var) f(x);
        return false;
    });
}

using Occurrences = std::unordered_map<std::string, std::size_t>;

// The clause a search runs over, for comprehensions that bind no outer variable: how often
// each variable occurs in it, counted once, on first need.
struct Clause {
    const Body& body;
    const VarSet& arguments;  // a function's arguments, input and data
    std::optional<Occurrences> occurrences;

    const Occurrences& counts() {
        if (!occurrences) {
            occurrences.emplace();
            lang::walk_terms_in_body(body, [&](const Term& t) {
                each_variable(t, [&](const Term& v) { ++(*occurrences)[v.text]; });
                return true;  // each_variable walked below t
            });
        }
        return *occurrences;
    }
};

// Whether a comprehension names no variable the rest of its clause names (its head and
// nested comprehensions included): then nothing outside can bind one of its variables,
// and its value is the same wherever in the clause it is evaluated. By name: every
// binding of a variable outside is an occurrence of it there, so a variable occurring
// more often in the clause than in the comprehension is shared.
bool reads_nothing_outside(const Term& comprehension, Clause& clause) {
    Occurrences inside;
    each_variable(comprehension, [&](const Term& v) {
        if (!reserved_vars().count(v.text)) ++inside[v.text];
    });
    const Occurrences& all = clause.counts();
    for (const auto& [name, n] : inside) {
        if (clause.arguments.count(name)) return false;
        auto it = all.find(name);
        if (it != all.end() && it->second > n) return false;
    }
    return true;
}

// OPA's getComprehensionIndex for one literal. A comprehension that reads no outer
// variable at all gets no keys (gavel keeps its value where that shows nothing, PBody::closed).
void index_of(const Expr& e, const VarSet& candidates, const compiler::ArityFn& arity, Clause& clause,
              ComprehensionIndexKeys& out) {
    const Term* comprehension = assigned_comprehension(e);
    if (!comprehension) return;
    const Body& body = *comprehension->body;
    const VarSet outputs = compiler::output_vars_for_body(body, arity, reserved_vars());
    for (const auto& v : compiler::vars_of(body, compiler::safety_params()))
        if (!outputs.count(v) && !reserved_vars().count(v)) return;  // it needs the outer bindings
    if (lookups_by_candidates(body, candidates) || nested_closes_over(body, candidates)) return;
    std::vector<std::string> keys;  // sorted, as outputs are; candidates may be many more
    for (const auto& v : outputs)
        if (candidates.count(v)) keys.push_back(v);
    if (!keys.empty() || reads_nothing_outside(*comprehension, clause)) out[&body] = std::move(keys);
}

// OPA's buildComprehensionIndices: the literals of a body in order, each one's variables
// candidates for the literals after it, then the nested bodies in the order written, the
// candidates still growing (OPA's WalkBodies with one candidate set).
void walk_bodies(const Body& body, VarSet& candidates, const compiler::ArityFn& arity, Clause& clause,
                 ComprehensionIndexKeys& out) {
    compiler::VarVisitorParams own;
    own.skip_closures = true;
    own.skip_ref_call_head = true;
    for (const Expr& e : body) {
        index_of(e, candidates, arity, clause, out);
        compiler::add_all(candidates, compiler::vars_of(e, own));
    }
    // A comprehension met in a literal's own terms: its head's comprehensions, then its body.
    auto nested = [&](auto& self, const Term& x) -> bool {
        if (!x.body || x.kind == TermKind::Template) return false;
        for (const Term* head : {x.key.get(), x.value.get()})
            if (head) lang::walk_terms(*head, [&](const Term& y) { return self(self, y); });
        walk_bodies(*x.body, candidates, arity, clause, out);
        return true;
    };
    auto comprehensions_in = [&](const Expr& e) {
        lang::walk_own_terms(e, [&](const Term& x) { return nested(nested, x); });
    };
    for (const Expr& e : body) {
        comprehensions_in(e);
        if (e.every.body) walk_bodies(*e.every.body, candidates, arity, clause, out);
        for (const Expr& c : e.children) {
            comprehensions_in(c);
            if (c.body) walk_bodies(*c.body, candidates, arity, clause, out);
        }
        if (e.body) walk_bodies(*e.body, candidates, arity, clause, out);
    }
}

}  // namespace

void find_comprehension_indexes(const lang::Body& body, compiler::VarSet candidates, const compiler::ArityFn& arity,
                                ComprehensionIndexKeys& out) {
    // Most bodies have no such literal: no variable sets are collected for them.
    bool any = false;
    lang::walk_exprs(body, [&](const Expr& e) {
        any = any || assigned_comprehension(e);
        return any;
    });
    if (!any) return;
    compiler::add_all(candidates, reserved_vars());
    const VarSet arguments = candidates;
    Clause clause{body, arguments, std::nullopt};
    walk_bodies(body, candidates, arity, clause, out);
}

}  // namespace gavel::eval
