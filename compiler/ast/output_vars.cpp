#include "compiler/ast/output_vars.hpp"

#include <map>

#include "compiler/ast/terms.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;

namespace {

// The variables bound so far: a set and, optionally, a second one beside it
// (what an expression's refs bind), without copying the first.
struct Bound {
    const VarSet& base;
    const VarSet* more = nullptr;
    bool contains(const std::string& v) const { return base.count(v) || (more && more->count(v)); }
    std::size_t missing(const VarSet& vars) const {
        std::size_t n = 0;
        for (const auto& v : vars) n += contains(v) ? 0 : 1;
        return n;
    }
};

bool ref_safe(const Term& ref, const Bound& safe);

bool call_safe(const Term& call, const Bound& safe) { return safe.missing(vars_of(call, safety_params())) == 0; }

bool ref_safe(const Term& ref, const Bound& safe) {
    const Term& head = *ref.elems[0];
    if (head.kind == TermKind::Var) return safe.contains(head.text);
    if (head.kind == TermKind::Call) return call_safe(head, safe);
    // Every variable of a composite head, those local to a comprehension in it included (OPA's Term.Vars).
    return safe.missing(vars_of(head)) == 0;
}

VarVisitorParams pattern_params() {
    VarVisitorParams p;
    p.skip_ref_head = true;
    p.skip_object_keys = true;
    p.skip_closures = true;
    return p;
}

// OPA's unifier: marks variables safe as unification would bind them, and
// remembers which unknowns wait on which.
class Unifier {
public:
    explicit Unifier(Bound safe) : safe_(safe) {}

    VarSet unified;

    void unify(const Term& a, const Term& b) {
        switch (a.kind) {
            case TermKind::Var:
                switch (b.kind) {
                    case TermKind::Var:
                        if (is_safe(b.text)) mark_safe(a.text);
                        else if (is_safe(a.text)) mark_safe(b.text);
                        else {
                            mark_unknown(a.text, b.text);
                            mark_unknown(b.text, a.text);
                        }
                        return;
                    case TermKind::Array:
                    case TermKind::Object: unify_all(a.text, b); return;
                    case TermKind::Ref:
                        if (ref_safe(b, safe_)) mark_safe(a.text);
                        return;
                    case TermKind::Call:
                        if (call_safe(b, safe_)) mark_safe(a.text);
                        return;
                    default: mark_safe(a.text); return;
                }
            case TermKind::Ref:
                if (ref_safe(a, safe_)) {
                    if (b.kind == TermKind::Var) mark_safe(b.text);
                    else if (b.kind == TermKind::Array || b.kind == TermKind::Object) mark_all_safe(b);
                }
                return;
            case TermKind::Call:
                if (call_safe(a, safe_)) {
                    if (b.kind == TermKind::Var) mark_safe(b.text);
                    else if (b.kind == TermKind::Array || b.kind == TermKind::Object) mark_all_safe(b);
                }
                return;
            case TermKind::ArrayComprehension:
                if (b.kind == TermKind::Var) mark_safe(b.text);
                else if (b.kind == TermKind::Array) mark_all_safe(b);
                return;
            case TermKind::ObjectComprehension:
                if (b.kind == TermKind::Var) mark_safe(b.text);
                else if (b.kind == TermKind::Object) mark_all_safe(b);
                return;
            case TermKind::SetComprehension:
                if (b.kind == TermKind::Var) mark_safe(b.text);
                return;
            case TermKind::Array:
                switch (b.kind) {
                    case TermKind::Var: unify_all(b.text, a); return;
                    case TermKind::ArrayComprehension:
                    case TermKind::ObjectComprehension:
                    case TermKind::SetComprehension: mark_all_safe(a); return;
                    case TermKind::Ref:
                        if (ref_safe(b, safe_)) mark_all_safe(a);
                        return;
                    case TermKind::Call:
                        if (call_safe(b, safe_)) mark_all_safe(a);
                        return;
                    case TermKind::Array:
                        if (a.elems.size() == b.elems.size())
                            for (std::size_t i = 0; i < a.elems.size(); ++i) unify(*a.elems[i], *b.elems[i]);
                        return;
                    default: return;
                }
            case TermKind::Object:
                switch (b.kind) {
                    case TermKind::Var: unify_all(b.text, a); return;
                    case TermKind::Ref:
                        if (ref_safe(b, safe_)) mark_all_safe(a);
                        return;
                    case TermKind::Call:
                        if (call_safe(b, safe_)) mark_all_safe(a);
                        return;
                    case TermKind::Object:
                        if (a.items.size() == b.items.size())
                            for (const auto& [k, v] : a.items)
                                if (const Term* other = find_value(b, *k)) unify(*v, *other);
                        return;
                    default: return;
                }
            default:
                if (b.kind == TermKind::Var) mark_safe(b.text);
                return;
        }
    }

private:
    // The value at a constant key of an object term (keys compared as written).
    static const Term* find_value(const Term& object, const Term& key);

    bool is_safe(const std::string& v) const { return safe_.contains(v) || unified.count(v); }

    void mark_all_safe(const Term& t) {
        for (const auto& v : vars_of(t, pattern_params())) mark_safe(v);
    }

    void mark_safe(const std::string& x) {
        // Iterative: marking one variable can release many that waited on it.
        std::vector<std::string> work{x};
        while (!work.empty()) {
            std::string v = std::move(work.back());
            work.pop_back();
            if (!unified.insert(v).second && !unknown_.count(v)) continue;
            if (auto it = unknown_.find(v); it != unknown_.end()) {
                for (const auto& dep : it->second) work.push_back(dep);
                unknown_.erase(it);
            }
            for (auto it = unknown_.begin(); it != unknown_.end();) {
                if (it->second.erase(v) && it->second.empty()) {
                    work.push_back(it->first);
                    it = unknown_.erase(it);
                } else {
                    ++it;
                }
            }
        }
    }

    void mark_unknown(const std::string& a, const std::string& b) { unknown_[a].insert(b); }

    void unify_all(const std::string& a, const Term& b) {
        if (is_safe(a)) {
            mark_all_safe(b);
            return;
        }
        VarSet unsafe;
        for (const auto& v : vars_of(b, pattern_params()))
            if (!safe_.contains(v) && !unified.count(v)) unsafe.insert(v);
        if (unsafe.empty()) mark_safe(a);
        else
            for (const auto& v : unsafe) mark_unknown(a, v);
    }

    Bound safe_;
    std::map<std::string, VarSet> unknown_;
};

bool same_scalar(const Term& a, const Term& b) {
    return a.kind == b.kind && is_scalar(a) && a.text == b.text && a.boolean == b.boolean;
}

const Term* Unifier::find_value(const Term& object, const Term& key) {
    for (const auto& [k, v] : object.items)
        if (same_scalar(*k, key) || (k->kind == TermKind::Var && key.kind == TermKind::Var && k->text == key.text))
            return v.get();
    return nullptr;
}

VarSet output_vars_for_expr_eq(const lang::Expr& e, const VarSet& safe, VarSet* scratch) {
    if (operand_count(e) != 2) return safe;  // as OPA: an invalid equality "binds" what is already bound
    VarSet output;
    if (scratch) {
        output = std::move(*scratch);  // what an earlier call left there (then emptied, as OPA clears it)
        scratch->clear();
    }
    output_vars_for_terms(e, safe, output);
    // Unified given what is safe and what the expression's refs bind (OPA copies both into one set).
    Unifier u(Bound{safe, &output});
    u.unify(*operand(e, 0), *operand(e, 1));
    add_all(output, u.unified);
    for (auto it = output.begin(); it != output.end();) it = safe.count(*it) ? output.erase(it) : std::next(it);
    return output;
}

VarSet output_vars_for_expr_call(const lang::Expr& e, int arity, const VarSet& safe, VarSet* scratch) {
    VarSet output;
    output_vars_for_terms(e, safe, output);
    // Left in the shared set whatever the outcome: the refs' outputs, then the call's.
    auto leave = [&] {
        if (scratch) *scratch = output;
    };
    const auto& terms = e.term->elems;  // operator, then operands
    std::size_t inputs = static_cast<std::size_t>(arity) + 1;
    if (inputs >= terms.size()) {
        leave();
        return output;
    }
    VarVisitorParams params;
    params.skip_closures = true;
    params.skip_sets = true;
    params.skip_object_keys = true;
    params.skip_ref_head = true;
    VarVisitor in(params);
    for (std::size_t i = 0; i < inputs; ++i) in.walk(*terms[i]);
    if (difference_count(difference(in.vars(), output), safe) > 0) {
        leave();
        return {};
    }
    VarVisitor out(params);
    for (std::size_t i = inputs; i < terms.size(); ++i) out.walk(*terms[i]);
    add_all(output, out.vars());
    leave();
    return output;
}

}  // namespace

VarSet unify_vars(const VarSet& safe, const Term& a, const Term& b) {
    Unifier u(Bound{safe});
    u.unify(a, b);
    return u.unified;
}

bool is_ref_safe(const Term& ref, const VarSet& safe) { return ref_safe(ref, Bound{safe}); }

bool is_call_safe(const Term& call, const VarSet& safe) { return call_safe(call, Bound{safe}); }

void output_vars_for_terms(const Term& t, const VarSet& safe, VarSet& out) {
    if (is_comprehension(t) || t.kind == TermKind::Template) return;
    if (t.kind == TermKind::Ref) {
        if (!is_ref_safe(t, safe)) return;
        if (!is_ground(t)) {
            VarVisitorParams p;
            p.skip_ref_head = true;
            VarVisitor v(p);
            v.walk_ref(t);
            add_all(out, v.vars());
        }
    }
    for (const auto& e : t.elems) output_vars_for_terms(*e, safe, out);
    for (const auto& [k, v] : t.items) {
        output_vars_for_terms(*k, safe, out);
        output_vars_for_terms(*v, safe, out);
    }
}

void output_vars_for_terms(const lang::Expr& e, const VarSet& safe, VarSet& out) {
    switch (e.kind) {
        case ExprKind::Term: output_vars_for_terms(*e.term, safe, out); break;
        case ExprKind::Some:
            if (e.some.in_call) output_vars_for_terms(*e.some.in_call, safe, out);
            for (const auto& v : e.some.vars) output_vars_for_terms(*v, safe, out);
            break;
        case ExprKind::Every:
            if (e.every.key) output_vars_for_terms(*e.every.key, safe, out);
            output_vars_for_terms(*e.every.value, safe, out);
            output_vars_for_terms(*e.every.domain, safe, out);
            break;
        default: break;
    }
    for (const auto& w : e.withs) {
        output_vars_for_terms(*w.target, safe, out);
        output_vars_for_terms(*w.value, safe, out);
    }
}

VarSet output_vars_for_expr(const lang::Expr& e, const ArityFn& arity, const VarSet& safe, VarSet* scratch) {
    if (e.negated) return {};
    for (const auto& w : e.withs) {
        VarVisitor v(safety_params());
        v.walk(w);
        if (difference_count(v.vars(), safe) > 0) return {};
    }
    switch (e.kind) {
        case ExprKind::Term: {
            if (e.term->kind != TermKind::Call) {
                VarSet out;
                output_vars_for_terms(e, safe, out);
                return out;
            }
            if (is_equality(e)) return output_vars_for_expr_eq(e, safe, scratch);
            const Term& op = operator_of(*e.term);
            if (op.kind != TermKind::Ref) return {};
            int n = arity(op);
            if (n < 0) return {};
            return output_vars_for_expr_call(e, n, safe, scratch);
        }
        case ExprKind::Every: {
            VarSet out;
            output_vars_for_terms(*e.every.domain, safe, out);
            return out;
        }
        default: return {};  // and/or and blocks bind nothing for the enclosing body
    }
}

VarSet output_vars_for_body(const lang::Body& body, const ArityFn& arity, const VarSet& safe) {
    VarSet o = safe;
    VarSet scratch;
    for (const auto& e : body) add_all(o, output_vars_for_expr(e, arity, o, &scratch));
    return difference(o, safe);
}

VarSet unsafe_implicit_body_vars(const lang::Body& body, const ArityFn& arity) {
    VarSet result;
    if (body.empty()) return result;
    std::map<std::string, std::size_t> occurrences;  // in how many expressions each var appears
    for (const auto& e : body)
        for (const auto& v : vars_of(e, safety_params())) ++occurrences[v];
    if (body.size() == 1) {
        for (const auto& [v, n] : occurrences) result.insert(v);
        return result;
    }
    VarSet bindings;
    for (const auto& e : body) {
        if (!is_call_expr(e)) continue;
        if (is_equality(e)) {
            add_all(bindings, output_vars_for_expr_eq(e, {}, nullptr));
            continue;
        }
        const Term& op = operator_of(*e.term);
        if (op.kind != TermKind::Ref) continue;
        int n = arity(op);
        if (n < 0) continue;
        std::size_t inputs = static_cast<std::size_t>(n) + 1;
        if (inputs >= e.term->elems.size()) continue;
        VarVisitorParams p;
        p.skip_closures = true;
        p.skip_sets = true;
        p.skip_object_keys = true;
        p.skip_ref_head = true;
        VarVisitor out(p);
        for (std::size_t i = inputs; i < e.term->elems.size(); ++i) out.walk(*e.term->elems[i]);
        add_all(bindings, out.vars());
    }
    for (const auto& [v, n] : occurrences)
        if (!bindings.count(v) || n == 1) result.insert(v);
    return result;
}

}  // namespace gavel::compiler
