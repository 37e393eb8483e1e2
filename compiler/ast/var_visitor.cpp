#include "compiler/ast/var_visitor.hpp"

#include "compiler/ast/output_vars.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;

namespace {

bool is_closure(TermKind k) {
    return k == TermKind::ArrayComprehension || k == TermKind::SetComprehension || k == TermKind::ObjectComprehension ||
           k == TermKind::Template;
}

}  // namespace

void VarVisitor::note_location(const Term& t) {
    if (t.kind == TermKind::Var && vars_.count(t.text)) locations_[t.text] = t.loc;
}

void VarVisitor::walk(const Term& t) {
    walk_value(t);
    note_location(t);
}

void VarVisitor::walk_call_skipping_head(const Term& call) {
    const Term& op = *call.elems[0];
    if (op.kind == TermKind::Ref)
        for (std::size_t i = 1; i < op.elems.size(); ++i) walk(*op.elems[i]);
    for (std::size_t i = 1; i < call.elems.size(); ++i) walk(*call.elems[i]);
}

void VarVisitor::walk_value(const Term& t) {
    if (params_.skip_object_keys && t.kind == TermKind::Object) {
        for (const auto& [k, v] : t.items) walk(*v);
        return;
    }
    if (params_.skip_ref_head && t.kind == TermKind::Ref) {
        for (std::size_t i = 1; i < t.elems.size(); ++i) walk(*t.elems[i]);
        return;
    }
    if (params_.skip_closures && is_closure(t.kind)) return;
    if (params_.skip_sets && t.kind == TermKind::Set) return;
    if (params_.skip_ref_call_head && t.kind == TermKind::Call) {
        walk_call_skipping_head(t);
        return;
    }
    if (params_.skip_template_strings && t.kind == TermKind::Template) return;
    switch (t.kind) {
        case TermKind::Var: add(t.text); return;
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Call:
            for (const auto& e : t.elems) walk(*e);
            return;
        case TermKind::Object:
            for (const auto& [k, v] : t.items) {
                walk(*k);
                walk(*v);
            }
            return;
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
            walk(*t.value);
            walk(*t.body);
            return;
        case TermKind::ObjectComprehension:
            walk(*t.key);
            walk(*t.value);
            walk(*t.body);
            return;
        case TermKind::Template:
            for (const auto& part : *t.body) walk(part);
            return;
        default: return;
    }
}

void VarVisitor::walk(const lang::Expr& e) {
    switch (e.kind) {
        case ExprKind::Term:
            if (e.term->kind == TermKind::Call) {
                if (params_.skip_ref_call_head) {
                    walk_call_skipping_head(*e.term);
                } else {
                    for (const auto& x : e.term->elems) walk_value(*x);
                }
            } else {
                walk(*e.term);
            }
            break;
        case ExprKind::Some:
            if (e.some.in_call) walk(*e.some.in_call);
            for (const auto& v : e.some.vars) walk(*v);
            break;
        case ExprKind::Every:
            if (params_.skip_closures) {
                walk(*e.every.domain);
                return;  // as OPA: an every's `with` is not walked here
            }
            if (e.every.key) walk_value(*e.every.key);
            walk(*e.every.value);
            walk(*e.every.domain);
            walk(*e.every.body);
            break;
        case ExprKind::Block:
            if (params_.promote_implicit_bodies) {
                if (e.implicit_body)
                    add_all(vars_, unsafe_implicit_body_vars(*e.body, *params_.promote_implicit_bodies));
            } else if (!params_.skip_closures) {
                walk(*e.body);
            }
            break;
        case ExprKind::LogicAnd:
        case ExprKind::LogicOr:
            for (const auto& child : e.children) {
                bool block = child.kind == ExprKind::Block && !child.negated;
                if (params_.promote_implicit_bodies) {
                    const ArityFn& arity = *params_.promote_implicit_bodies;
                    if (block && child.implicit_body) add_all(vars_, unsafe_implicit_body_vars(*child.body, arity));
                    else if (!block) add_all(vars_, unsafe_implicit_body_vars(lang::Body{child}, arity));
                } else if (!params_.skip_closures) {
                    if (block) walk(*child.body);
                    else walk(child);
                }
            }
            break;
    }
    for (const auto& w : e.withs) walk(w);
}

void VarVisitor::walk(const lang::Body& b) {
    for (const auto& e : b) walk(e);
}

void VarVisitor::walk(const lang::With& w) {
    if (params_.skip_with_target) {
        walk(*w.value);
        return;
    }
    if (params_.skip_ref_call_head) {
        if (w.target->kind == TermKind::Ref)
            for (std::size_t i = 1; i < w.target->elems.size(); ++i) walk(*w.target->elems[i]);
        if (w.value->kind == TermKind::Ref) {
            for (std::size_t i = 1; i < w.value->elems.size(); ++i) walk(*w.value->elems[i]);
        } else {
            walk(*w.value);
        }
        return;
    }
    walk_value(*w.target);
    walk_value(*w.value);
}

void VarVisitor::walk_args(const std::vector<lang::TermPtr>& args) {
    for (const auto& a : args) walk_value(*a);
}

void VarVisitor::walk_ref(const Term& ref, std::size_t from) {
    if (params_.skip_ref_head && from == 0) from = 1;
    for (std::size_t i = from; i < ref.elems.size(); ++i) {
        walk_value(*ref.elems[i]);
        note_location(*ref.elems[i]);
    }
}

void VarVisitor::walk_head_vars(const lang::RuleHead& head) {
    walk_args(head.args);
    if (head.key) walk(*head.key);
    if (head.value) walk(*head.value);
    if (head.ref && head.ref->kind == TermKind::Ref) walk_ref(*head.ref, 1);
}

VarSet vars_of(const Term& t, VarVisitorParams params) {
    VarVisitor v(params);
    v.walk(t);
    return v.vars();
}

VarSet vars_of(const lang::Expr& e, VarVisitorParams params) {
    VarVisitor v(params);
    v.walk(e);
    return v.vars();
}

VarSet vars_of(const lang::Body& b, VarVisitorParams params) {
    VarVisitor v(params);
    v.walk(b);
    return v.vars();
}

}  // namespace gavel::compiler
