#include "lang/term_string.hpp"
#include "lang/go_quote.hpp"

#include <fmt/format.h>

#include "lang/builtins.hpp"

namespace gavel::lang {

namespace {

bool is_keyword(std::string_view s) {
    static constexpr std::string_view kKeywords[] = {"not",  "package", "import", "as",   "default",
                                                     "else", "with",    "null",   "true", "false",
                                                     "some", "every",   "in",     "if",   "contains"};
    for (auto k : kKeywords)
        if (s == k) return true;
    return false;
}

void append(std::string& out, const Term& t);
void append(std::string& out, const lang::Body& b);

void append_list(std::string& out, const std::vector<lang::TermPtr>& xs, std::size_t from = 0) {
    for (std::size_t i = from; i < xs.size(); ++i) {
        if (i > from) out += ", ";
        append(out, *xs[i]);
    }
}

// A comprehension's head: infix calls in parentheses, as OPA prints them.
void append_head(std::string& out, const Term& t) {
    if (t.kind == TermKind::Call && t.elems.size() == 3) {
        std::string op = t.elems[0]->kind == TermKind::Ref ? to_string(*t.elems[0]) : "";
        if (const auto* d = lang::find_builtin_decl(op); d && !d->infix.empty() && d->infix != "in") {
            out += '(';
            append_head(out, *t.elems[1]);
            out += ' ' + d->infix + ' ';
            append_head(out, *t.elems[2]);
            out += ')';
            return;
        }
    }
    append(out, t);
}

void append_ref(std::string& out, const Term& t) {
    const auto& e = t.elems;
    if (e.empty()) return;
    if (e[0]->kind == TermKind::String) out += e[0]->text;
    else append(out, *e[0]);
    for (std::size_t i = 1; i < e.size(); ++i) {
        const Term& p = *e[i];
        if (p.kind == TermKind::String && is_var_compatible(p.text) && !is_keyword(p.text)) {
            out += '.';
            out += p.text;
        } else {
            out += '[';
            if (p.kind == TermKind::String) lang::append_go_quoted(out, p.text);
            else append(out, p);
            out += ']';
        }
    }
}

void append(std::string& out, const Term& t) {
    switch (t.kind) {
        case TermKind::Null: out += "null"; return;
        case TermKind::Boolean: out += t.boolean ? "true" : "false"; return;
        case TermKind::Number: out += t.text; return;
        case TermKind::String: lang::append_go_quoted(out, t.text); return;
        case TermKind::Var: out += display_var(t.text); return;
        case TermKind::Ref: append_ref(out, t); return;
        case TermKind::Array:
            out += '[';
            append_list(out, t.elems);
            out += ']';
            return;
        case TermKind::Set:
            if (t.elems.empty()) {
                out += "set()";
                return;
            }
            out += '{';
            append_list(out, t.elems);
            out += '}';
            return;
        case TermKind::Object:
            out += '{';
            for (std::size_t i = 0; i < t.items.size(); ++i) {
                if (i) out += ", ";
                append(out, *t.items[i].first);
                out += ": ";
                append(out, *t.items[i].second);
            }
            out += '}';
            return;
        case TermKind::ArrayComprehension:
            out += '[';
            append_head(out, *t.value);
            out += " | ";
            append(out, *t.body);
            out += ']';
            return;
        case TermKind::SetComprehension:
            out += '{';
            append_head(out, *t.value);
            out += " | ";
            append(out, *t.body);
            out += '}';
            return;
        case TermKind::ObjectComprehension:
            out += '{';
            append_head(out, *t.key);
            out += ": ";
            append_head(out, *t.value);
            out += " | ";
            append(out, *t.body);
            out += '}';
            return;
        case TermKind::Call:
            append(out, *t.elems[0]);
            out += '(';
            append_list(out, t.elems, 1);
            out += ')';
            return;
        case TermKind::Template: out += t.loc.text(); return;
    }
}

void append(std::string& out, const lang::Body& b) {
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (i) out += "; ";
        out += to_string(b[i]);
    }
}

}  // namespace

bool is_var_compatible(std::string_view s) {
    if (s.empty()) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        bool digit = c >= '0' && c <= '9';
        if (!(letter || (i > 0 && digit))) return false;
    }
    return true;
}

std::string to_string(const Term& t) {
    std::string out;
    append(out, t);
    return out;
}

std::string to_string(const lang::Body& b) {
    std::string out;
    append(out, b);
    return out;
}

std::string to_string(const lang::Expr& e) {
    std::string out;
    if (e.negated) out += "not ";
    switch (e.kind) {
        case ExprKind::Term:
            if (e.term->kind == TermKind::Call && e.term->elems.size() == 3 && to_string(*e.term->elems[0]) == "eq") {
                append(out, *e.term->elems[1]);
                out += " = ";
                append(out, *e.term->elems[2]);
            } else {
                append(out, *e.term);
            }
            break;
        case ExprKind::Some:
            out += "some ";
            if (e.some.in_call) {
                const auto& c = e.some.in_call->elems;
                append(out, *c[1]);
                out += c.size() == 3 ? " in " : ", ";
                append(out, *c[2]);
                if (c.size() == 4) {
                    out += " in ";
                    append(out, *c[3]);
                }
            } else {
                append_list(out, e.some.vars);
            }
            break;
        case ExprKind::Every:
            out += "every ";
            if (e.every.key) {
                append(out, *e.every.key);
                out += ", ";
            }
            append(out, *e.every.value);
            out += " in ";
            append(out, *e.every.domain);
            out += " { ";
            append(out, *e.every.body);
            out += " }";
            break;
        case ExprKind::Block:
            out += '{';
            append(out, *e.body);
            out += '}';
            break;
        case ExprKind::LogicAnd:
        case ExprKind::LogicOr:
            for (std::size_t i = 0; i < e.children.size(); ++i) {
                if (i) out += e.kind == ExprKind::LogicAnd ? " and " : " or ";
                out += to_string(e.children[i]);
            }
            break;
    }
    for (const auto& w : e.withs) {
        out += " with ";
        append(out, *w.target);
        out += " as ";
        append(out, *w.value);
    }
    return out;
}

std::string value_name(const Term& t) { return std::string(lang::value_name(t.kind)); }

}  // namespace gavel::lang
