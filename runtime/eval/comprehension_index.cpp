#include "runtime/eval/comprehension_index.hpp"

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
// outer variable as its output, would be a lookup made into a scan: not indexed.
class RegressionCheck {
public:
    explicit RegressionCheck(const VarSet& candidates) : candidates_(candidates) {}

    bool worse(const Body& body) {
        visit(body);
        return worse_;
    }

private:
    void visit(const Body& body) {
        for (const Expr& e : body) {
            if (worse_) return;
            visit(e);
        }
    }

    void visit(const Expr& e) {
        if (e.kind == ExprKind::Term && e.term && e.term->kind == TermKind::Call && e.term->elems.size() > 2 &&
            e.term->call_name() == "walk")
            check(compiler::vars_of(*e.term->elems[2]));
        // OPA's visitor order: the expression's terms, then its nested bodies, then its withs.
        for (const Term* t :
             {e.term.get(), e.some.in_call.get(), e.every.key.get(), e.every.value.get(), e.every.domain.get()})
            if (t) visit(*t);
        for (const auto& v : e.some.vars) visit(*v);
        if (e.every.body) visit(*e.every.body);
        for (const Expr& c : e.children) visit(c);
        if (e.body) visit(*e.body);
        for (const auto& w : e.withs) {
            visit(*w.target);
            visit(*w.value);
        }
    }

    void visit(const Term& t) {
        lang::walk_terms(t, [&](const Term& x) {
            if (worse_ || compiler::is_comprehension(x)) return true;  // comprehensions are not visited
            if (x.kind == TermKind::Ref) {
                compiler::VarVisitorParams outputs;
                outputs.skip_ref_head = true;
                check(compiler::vars_of(x, outputs));
            } else if (x.kind == TermKind::Var) {
                seen_.insert(x.text);
            }
            return false;
        });
    }

    void check(const VarSet& vars) {
        for (const auto& v : vars)
            if (candidates_.count(v) && !seen_.count(v)) worse_ = true;
    }

    const VarSet& candidates_;
    VarSet seen_;
    bool worse_ = false;
};

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

// OPA's getComprehensionIndex for one literal.
void index_of(const Expr& e, const VarSet& candidates, const compiler::ArityFn& arity, ComprehensionIndexKeys& out) {
    const Term* comprehension = assigned_comprehension(e);
    if (!comprehension) return;
    const Body& body = *comprehension->body;
    const VarSet outputs = compiler::output_vars_for_body(body, arity, reserved_vars());
    for (const auto& v : compiler::vars_of(body, compiler::safety_params()))
        if (!outputs.count(v) && !reserved_vars().count(v)) return;  // it needs the outer bindings
    if (RegressionCheck(candidates).worse(body) || nested_closes_over(body, candidates)) return;
    std::vector<std::string> keys;  // sorted, as outputs are; candidates may be many more
    for (const auto& v : outputs)
        if (candidates.count(v)) keys.push_back(v);
    if (!keys.empty()) out[&body] = std::move(keys);
}

// OPA's buildComprehensionIndices: the literals of a body in order, each one's variables
// candidates for the literals after it, then the nested bodies in the order written, the
// candidates still growing (OPA's WalkBodies with one candidate set).
void walk_bodies(const Body& body, VarSet& candidates, const compiler::ArityFn& arity, ComprehensionIndexKeys& out) {
    compiler::VarVisitorParams own;
    own.skip_closures = true;
    own.skip_ref_call_head = true;
    for (const Expr& e : body) {
        index_of(e, candidates, arity, out);
        compiler::add_all(candidates, compiler::vars_of(e, own));
    }
    auto nested_in = [&](auto& self, const Term& t) -> void {
        lang::walk_terms(t, [&](const Term& x) {
            if (!x.body || x.kind == TermKind::Template) return false;
            if (x.key) self(self, *x.key);
            if (x.value) self(self, *x.value);
            walk_bodies(*x.body, candidates, arity, out);
            return true;
        });
    };
    for (const Expr& e : body) {
        for (const Term* t :
             {e.term.get(), e.some.in_call.get(), e.every.key.get(), e.every.value.get(), e.every.domain.get()})
            if (t) nested_in(nested_in, *t);
        if (e.every.body) walk_bodies(*e.every.body, candidates, arity, out);
        for (const Expr& c : e.children) {
            if (c.term) nested_in(nested_in, *c.term);
            if (c.body) walk_bodies(*c.body, candidates, arity, out);
        }
        if (e.body) walk_bodies(*e.body, candidates, arity, out);
        for (const auto& w : e.withs) nested_in(nested_in, *w.value);
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
    walk_bodies(body, candidates, arity, out);
}

}  // namespace gavel::eval
