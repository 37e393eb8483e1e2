#include "compiler/ast/terms.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;
using lang::TermPtr;

bool is_scalar(const Term& t) {
    switch (t.kind) {
        case TermKind::Null:
        case TermKind::Boolean:
        case TermKind::Number:
        case TermKind::String: return true;
        default: return false;
    }
}

bool is_comprehension(const Term& t) {
    return t.kind == TermKind::ArrayComprehension || t.kind == TermKind::SetComprehension ||
           t.kind == TermKind::ObjectComprehension;
}

bool is_constant(const Term& t) {
    switch (t.kind) {
        case TermKind::Var:
        case TermKind::Ref:
        case TermKind::Call:
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension:
        case TermKind::Template: return false;
        case TermKind::Array:
        case TermKind::Set:
            for (const auto& e : t.elems)
                if (!is_constant(*e)) return false;
            return true;
        case TermKind::Object:
            for (const auto& [k, v] : t.items)
                if (!is_constant(*k) || !is_constant(*v)) return false;
            return true;
        default: return true;
    }
}

bool requires_eval(const Term& t) {
    switch (t.kind) {
        // Bare `input` and `data` are references too (OPA resolves them to one-part refs).
        case TermKind::Var: return t.text == "input" || t.text == "data";
        case TermKind::Ref:
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension: return true;
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Call:
            for (const auto& e : t.elems)
                if (requires_eval(*e)) return true;
            return false;
        case TermKind::Object:
            for (const auto& [k, v] : t.items)
                if (requires_eval(*k) || requires_eval(*v)) return true;
            return false;
        case TermKind::Template:
            for (const auto& part : *t.body)
                if (part.term && requires_eval(*part.term)) return true;
            return false;
        default: return false;
    }
}

bool head_may_have_vars(const lang::RuleHead& h) {
    for (const auto& a : h.args)
        if (!is_scalar(*a)) return true;
    if (h.key && !is_scalar(*h.key)) return true;
    if (h.value && !is_scalar(*h.value)) return true;
    for (std::size_t i = 1; i < h.ref->elems.size(); ++i)
        if (!is_scalar(*h.ref->elems[i])) return true;
    return false;
}

namespace {

bool term_contains_closure(const Term& t) {
    if (is_comprehension(t) || t.kind == TermKind::Template) return true;
    for (const auto& e : t.elems)
        if (term_contains_closure(*e)) return true;
    for (const auto& [k, v] : t.items)
        if (term_contains_closure(*k) || term_contains_closure(*v)) return true;
    return false;
}

}  // namespace

bool contains_closure(const lang::Expr& e) {
    switch (e.kind) {
        case ExprKind::Every:
        case ExprKind::Block:
        case ExprKind::LogicAnd:
        case ExprKind::LogicOr: return true;
        case ExprKind::Some: return e.some.in_call && term_contains_closure(*e.some.in_call);
        case ExprKind::Term: break;
    }
    if (term_contains_closure(*e.term)) return true;
    for (const auto& w : e.withs)
        if (term_contains_closure(*w.target) || term_contains_closure(*w.value)) return true;
    return false;
}

bool is_ref_to(const Term& t, std::string_view root) {
    if (t.kind == TermKind::Var) return t.text == root;
    return t.kind == TermKind::Ref && !t.elems.empty() && t.elems[0]->kind == TermKind::Var && t.elems[0]->text == root;
}

std::size_t ground_prefix_length(const Term& ref) {
    for (std::size_t i = 1; i < ref.elems.size(); ++i)
        if (!is_ground(*ref.elems[i])) return i;
    return ref.elems.size();
}

bool is_call_expr(const lang::Expr& e) { return e.kind == ExprKind::Term && e.term && e.term->kind == TermKind::Call; }

bool is_global_call(const lang::Expr& e, std::string_view name) {
    if (!is_call_expr(e)) return false;
    const Term& op = *e.term->elems[0];
    return op.kind == TermKind::Ref && op.elems.size() == 1 && op.elems[0]->kind == TermKind::Var &&
           op.elems[0]->text == name;
}

std::size_t operand_count(const lang::Expr& e) { return is_call_expr(e) ? e.term->elems.size() - 1 : 0; }

const TermPtr& operand(const lang::Expr& e, std::size_t i) { return e.term->elems[i + 1]; }

const Term& operator_of(const Term& call) { return *call.elems[0]; }

std::string dotted_name(const Term& ref) {
    if (ref.kind == TermKind::Var) return ref.text;
    if (ref.kind != TermKind::Ref || ref.elems.empty() || ref.elems[0]->kind != TermKind::Var) return {};
    std::string out = ref.elems[0]->text;
    for (std::size_t i = 1; i < ref.elems.size(); ++i) {
        if (ref.elems[i]->kind != TermKind::String) return {};
        out += '.';
        out += ref.elems[i]->text;
    }
    return out;
}

lang::Expr make_equality(TermPtr lhs, TermPtr rhs, const lang::Location& loc, bool generated) {
    lang::Expr e;
    e.kind = ExprKind::Term;
    e.loc = loc;
    e.generated = generated;
    e.term = lang::make_call("eq", {std::move(lhs), std::move(rhs)}, loc, true);
    return e;
}

void append_to_body(lang::Body& body, lang::Expr e) {
    if (body.size() == 1 && body[0].kind == ExprKind::Term && !body[0].negated && body[0].withs.empty() &&
        body[0].term->kind == TermKind::Boolean && body[0].term->boolean) {
        body[0] = std::move(e);
        return;
    }
    body.push_back(std::move(e));
}

}  // namespace gavel::compiler
