#include "lang/format/term_string.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace gavel::lang::format {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// The length of the UTF-8 sequence at s[i] and its code point; 0 when invalid.
std::size_t decode_utf8(std::string_view s, std::size_t i, uint32_t& cp) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
        auto d = static_cast<unsigned char>(s[i + k]);
        if ((d & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (d & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

// Go's unicode.IsPrint for the code points a policy is likely to hold: C1
// controls, spaces other than ' ' and invisible format characters are not printable.
bool is_go_printable(uint32_t cp) {
    if (cp < 0xA0) return false;  // only called for non-ASCII
    if (cp == 0xA0 || cp == 0xAD || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) ||
        (cp >= 0x2028 && cp <= 0x202F) || (cp >= 0x205F && cp <= 0x2064) || cp == 0x3000 || cp == 0xFEFF ||
        (cp >= 0xFFF9 && cp <= 0xFFFB) || (cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000)
        return false;
    return true;
}

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

std::string go_quote(std::string_view s) {
    std::string out = "\"";
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\a': out += "\\a"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                case '\v': out += "\\v"; break;
                default:
                    if (c < 0x20 || c == 0x7F) {
                        out += "\\x";
                        out.push_back(kHex[c >> 4]);
                        out.push_back(kHex[c & 0xF]);
                    } else {
                        out.push_back(static_cast<char>(c));
                    }
            }
            ++i;
            continue;
        }
        uint32_t cp = 0;
        std::size_t n = decode_utf8(s, i, cp);
        if (n == 0) {
            out += "\\x";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
            ++i;
        } else if (!is_go_printable(cp)) {
            out += cp > 0xFFFF ? fmt::format("\\U{:08x}", cp) : fmt::format("\\u{:04x}", cp);
            i += n;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    out.push_back('"');
    return out;
}

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
