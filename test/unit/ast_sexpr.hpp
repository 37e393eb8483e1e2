#pragma once
// A compact S-expression view of AST nodes, so tests can state the exact
// shape of what the parser built in one readable line.

#include <string>

#include "lang/ast.hpp"

namespace gavel::test {

std::string sexpr(const lang::TermPtr& t);
std::string sexpr(const lang::Expr& e);
std::string sexpr(const lang::Body& body);
std::string sexpr(const lang::Rule& r);

inline std::string sexpr(const lang::TermPtr& t) {
    using lang::TermKind;
    if (!t) return "<null>";
    auto list = [](const char* head, const std::vector<lang::TermPtr>& xs) {
        std::string out = std::string("(") + head;
        for (const auto& x : xs) out += ' ' + sexpr(x);
        return out + ")";
    };
    switch (t->kind) {
        case TermKind::Null: return "null";
        case TermKind::Boolean: return t->boolean ? "true" : "false";
        case TermKind::Number: return t->text;
        case TermKind::String: return "\"" + t->text + "\"";
        case TermKind::Var: return t->text;
        case TermKind::Ref: return list("ref", t->elems);
        case TermKind::Array: return list("array", t->elems);
        case TermKind::Set: return list("set", t->elems);
        case TermKind::Object: {
            std::string out = "(object";
            for (const auto& [k, v] : t->items) out += " " + sexpr(k) + ":" + sexpr(v);
            return out + ")";
        }
        case TermKind::ArrayComprehension: return "(array-of " + sexpr(t->value) + " " + sexpr(*t->body) + ")";
        case TermKind::SetComprehension: return "(set-of " + sexpr(t->value) + " " + sexpr(*t->body) + ")";
        case TermKind::ObjectComprehension:
            return "(object-of " + sexpr(t->key) + ":" + sexpr(t->value) + " " + sexpr(*t->body) + ")";
        case TermKind::Call: {
            std::string name = t->call_name();
            std::string out = "(" + (name.empty() ? sexpr(t->elems[0]) : name);
            for (std::size_t i = 1; i < t->elems.size(); ++i) out += " " + sexpr(t->elems[i]);
            return out + ")";
        }
        case TermKind::Template: return "(template " + sexpr(*t->body) + ")";
    }
    return "?";
}

inline std::string sexpr(const lang::Expr& e) {
    using lang::ExprKind;
    std::string out;
    switch (e.kind) {
        case ExprKind::Term: out = sexpr(e.term); break;
        case ExprKind::Some:
            if (e.some.in_call) {
                out = "(some " + sexpr(e.some.in_call) + ")";
            } else {
                out = "(some";
                for (const auto& v : e.some.vars) out += " " + sexpr(v);
                out += ")";
            }
            break;
        case ExprKind::Every:
            out = "(every " + (e.every.key ? sexpr(e.every.key) + " " : std::string()) + sexpr(e.every.value) + " " +
                  sexpr(e.every.domain) + " " + sexpr(*e.every.body) + ")";
            break;
        case ExprKind::LogicAnd:
        case ExprKind::LogicOr: {
            out = e.kind == ExprKind::LogicAnd ? "(and" : "(or";
            for (const auto& c : e.children) out += " " + sexpr(c);
            out += ")";
            break;
        }
        case ExprKind::Block: out = "(block " + sexpr(*e.body) + ")"; break;
    }
    if (e.negated) out = "(not " + out + ")";
    for (const auto& w : e.withs) out += " (with " + sexpr(w.target) + " " + sexpr(w.value) + ")";
    return out;
}

inline std::string sexpr(const lang::Body& body) {
    std::string out = "{";
    for (std::size_t i = 0; i < body.size(); ++i) out += (i ? "; " : "") + sexpr(body[i]);
    return out + "}";
}

inline std::string sexpr(const lang::Rule& r) {
    std::string out = r.is_default ? "(default " : "(rule ";
    out += sexpr(r.head.ref);
    if (r.head.has_args)
        out += " " + [&] {
            std::string a = "(args";
            for (const auto& x : r.head.args) a += ' ' + sexpr(x);
            return a + ")";
        }();
    if (r.head.key) out += (r.head.contains ? " contains " : " key ") + sexpr(r.head.key);
    if (r.head.value) out += (r.head.assign == lang::AssignOp::Assign ? " := " : " = ") + sexpr(r.head.value);
    if (!r.body.empty()) out += " " + sexpr(r.body);
    for (const auto& b : r.extra_bodies) out += ' ' + sexpr(b);
    if (r.else_rule) out += " else " + sexpr(*r.else_rule);
    return out + ")";
}

}  // namespace gavel::test
