#include "lang/format/term_string.hpp"

#include "lang/go_quote.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace gavel::lang::format {

namespace {

void append_ref(std::string& out, const Term& ref);

void append_list(std::string& out, const std::vector<TermPtr>& elems, std::size_t from = 0) {
    for (std::size_t i = from; i < elems.size(); ++i) {
        if (i > from) out += ", ";
        out += term_string(*elems[i]);
    }
}

std::string body_string(const Body& body) {
    std::string out;
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (i > 0) out += "; ";
        const Expr& e = body[i];
        if (e.negated) out += "not ";
        if (e.term) out += term_string(*e.term);
        else if (e.loc.source) out += std::string(e.loc.text());
    }
    return out;
}

void append_ref(std::string& out, const Term& ref) {
    if (ref.elems.empty()) return;
    out += term_string(*ref.elems[0]);
    for (std::size_t i = 1; i < ref.elems.size(); ++i) {
        const Term& part = *ref.elems[i];
        if (part.kind == TermKind::String && is_var_compatible(part.text)) {
            out += '.';
            out += part.text;
        } else {
            out += '[';
            out += term_string(part);
            out += ']';
        }
    }
}

}  // namespace

bool is_var_compatible(std::string_view s) {
    if (s.empty()) return false;
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (!letter(s[0])) return false;
    for (char c : s.substr(1))
        if (!letter(c) && !(c >= '0' && c <= '9')) return false;
    return true;
}

std::string term_string(const Term& t) {
    std::string out;
    switch (t.kind) {
        case TermKind::Null: return "null";
        case TermKind::Boolean: return t.boolean ? "true" : "false";
        case TermKind::Number: return t.text;
        case TermKind::String: return go_quote(t.text);
        case TermKind::Var: return t.text;
        case TermKind::Ref: append_ref(out, t); return out;
        case TermKind::Array:
            out = "[";
            append_list(out, t.elems);
            return out + "]";
        case TermKind::Set:
            if (t.elems.empty()) return "set()";
            out = "{";
            append_list(out, t.elems);
            return out + "}";
        case TermKind::Object:
            out = "{";
            for (std::size_t i = 0; i < t.items.size(); ++i) {
                if (i > 0) out += ", ";
                out += term_string(*t.items[i].first) + ": " + term_string(*t.items[i].second);
            }
            return out + "}";
        case TermKind::ArrayComprehension:
            return "[" + term_string(*t.value) + " | " + body_string(*t.body) + "]";
        case TermKind::SetComprehension:
            return "{" + term_string(*t.value) + " | " + body_string(*t.body) + "}";
        case TermKind::ObjectComprehension:
            return "{" + term_string(*t.key) + ": " + term_string(*t.value) + " | " + body_string(*t.body) + "}";
        case TermKind::Call:
            if (t.elems.empty()) return out;
            out = term_string(*t.elems[0]) + "(";
            append_list(out, t.elems, 1);
            return out + ")";
        case TermKind::Template: return std::string(t.loc.text());
    }
    return out;
}

}  // namespace gavel::lang::format
