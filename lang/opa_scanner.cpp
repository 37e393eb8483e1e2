#include "lang/opa_scanner.hpp"

#include <array>

#include "support/utf8.hpp"

namespace gavel::lang::opa {

namespace {

constexpr int32_t kByteOrderMark = 0xFEFF;

constexpr std::array<std::string_view, static_cast<std::size_t>(Tok::If) + 1> kNames = {
    "illegal", "eof",  "whitespace", "identifier", "comment", "package",  "import", "as",     "default", "else",
    "not",     "some", "with",       "null",       "true",    "false",    "number", "string", "[",       "]",
    "{",       "}",    "(",          ")",          ",",       ":",        "plus",   "minus",  "mul",     "div",
    "rem",     "and",  "or",         "eq",         "equal",   "assign",   "in",     "neq",    "gt",      "lt",
    "gte",     "lte",  ".",          ";",          "every",   "contains", "if",
};

// ASCII letters and '_': OPA's identifiers start with one.
bool is_letter(int32_t c) {
    int32_t lower = c | 0x20;
    return ('a' <= lower && lower <= 'z') || c == '_';
}
bool is_decimal(int32_t c) { return '0' <= c && c <= '9'; }
bool is_whitespace(int32_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::string_view token_name(Tok tok) { return kNames[static_cast<std::size_t>(tok)]; }

bool is_keyword(Tok tok) {
    switch (tok) {
        case Tok::Package:
        case Tok::Import:
        case Tok::As:
        case Tok::Default:
        case Tok::Else:
        case Tok::Not:
        case Tok::Some:
        case Tok::With:
        case Tok::Null:
        case Tok::True:
        case Tok::False:
        case Tok::In:
        case Tok::Every:
        case Tok::Contains:
        case Tok::If: return true;
        default: return false;
    }
}

Scanner::Scanner(std::string_view text) : text_(text) {
    next();
    if (curr_ == kByteOrderMark) next();
}

void Scanner::next() {
    if (offset_ >= static_cast<int>(text_.size())) {
        curr_ = -1;
        offset_ = static_cast<int>(text_.size()) + 1;
        return;
    }
    curr_ = static_cast<unsigned char>(text_[static_cast<std::size_t>(offset_)]);
    width_ = 1;
    if (curr_ == 0) {
        error("illegal null character");
    } else if (curr_ >= 0x80) {
        auto r = support::utf8::decode_rune(text_, static_cast<std::size_t>(offset_));
        curr_ = static_cast<int32_t>(r.rune);
        width_ = static_cast<int>(r.width);
        if (r.rune == support::utf8::kReplacement && r.width == 1) error("illegal utf-8 character");
        else if (curr_ == kByteOrderMark && offset_ > 0) error("illegal byte-order mark");
    }
    offset_ += width_;
    if (curr_ == '\n') {
        ++row_;
        col_ = 0;
    } else {
        ++col_;
    }
}

Tok Scanner::keyword(std::string_view word) const {
    static constexpr std::pair<std::string_view, Tok> base[] = {
        {"package", Tok::Package}, {"import", Tok::Import}, {"as", Tok::As},       {"default", Tok::Default},
        {"else", Tok::Else},       {"not", Tok::Not},       {"some", Tok::Some},   {"with", Tok::With},
        {"null", Tok::Null},       {"true", Tok::True},     {"false", Tok::False},
    };
    struct Future {
        std::string_view word;
        Tok tok;
        uint8_t bit;
    };
    static constexpr Future future[] = {
        {"in", Tok::In, In}, {"every", Tok::Every, Every}, {"contains", Tok::Contains, Contains}, {"if", Tok::If, If}};
    for (const auto& [w, t] : base)
        if (w == word) return t;
    for (const auto& f : future)
        if (f.word == word && (future_keywords & f.bit)) return f.tok;
    return Tok::Ident;
}

std::string_view Scanner::scan_identifier() {
    int start = offset_ - 1;
    while (is_letter(curr_) || is_decimal(curr_)) next();
    return text_.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(offset_ - 1 - start));
}

std::string_view Scanner::scan_number() {
    int start = offset_ - 1;
    if (curr_ != '.')
        while (is_decimal(curr_)) next();
    if (curr_ == '.') {
        next();
        bool found = false;
        while (is_decimal(curr_)) {
            next();
            found = true;
        }
        if (!found) error("expected fraction");
    }
    if ((curr_ | 0x20) == 'e') {
        next();
        if (curr_ == '+' || curr_ == '-') next();
        bool found = false;
        while (is_decimal(curr_)) {
            next();
            found = true;
        }
        if (!found) error("expected exponent");
    }
    // The rest of a malformed number (`0a2b`) belongs to it.
    if (is_letter(curr_)) {
        error("illegal number format");
        while (is_letter(curr_) || is_decimal(curr_)) next();
    }
    return text_.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(offset_ - 1 - start));
}

std::string_view Scanner::scan_string() {
    int start = offset_ - (width_ + 1);
    while (true) {
        int32_t ch = curr_;
        if (ch == '\n' || ch < 0) {
            error("non-terminated string");
            break;
        }
        next();
        if (ch == '"') break;
        if (ch == '\\') {
            switch (curr_) {
                case '\\':
                case '"':
                case '/':
                case 'b':
                case 'f':
                case 'n':
                case 'r':
                case 't': next(); break;
                case 'u':
                    for (int i = 0; i < 4; ++i) next();
                    break;
                default: error("illegal escape sequence");
            }
        }
    }
    int end = offset_ - 1;
    if (end < start) end = start;
    return text_.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start));
}

std::string_view Scanner::scan_raw_string() {
    int start = offset_ - (width_ + 1);
    while (true) {
        int32_t ch = curr_;
        next();
        if (ch == '`') break;
        if (ch < 0) {
            error("non-terminated string");
            break;
        }
    }
    int end = offset_ - 1;
    if (end < start) end = start;
    return text_.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(end - start));
}

void Scanner::scan_comment() {
    while (curr_ != '\n' && curr_ != -1) next();
}

Scanned Scanner::scan() {
    Scanned out;
    out.pos = Position{offset_ - width_, 0, row_, col_};
    if (is_whitespace(curr_)) {
        out.lit = text_.substr(static_cast<std::size_t>(offset_ - width_), 1);
        next();
        out.tok = Tok::Whitespace;
    } else if (is_letter(curr_)) {
        out.lit = scan_identifier();
        out.tok = keyword(out.lit);
    } else if (is_decimal(curr_)) {
        out.lit = scan_number();
        out.tok = Tok::Number;
    } else {
        int32_t ch = curr_;
        next();
        auto two = [&](Tok pair, Tok single) {
            if (curr_ == '=') {
                next();
                return pair;
            }
            return single;
        };
        switch (ch) {
            case -1: out.tok = Tok::Eof; break;
            case '#':
                scan_comment();
                out.tok = Tok::Comment;
                break;
            case '"':
                out.lit = scan_string();
                out.tok = Tok::String;
                break;
            case '`':
                out.lit = scan_raw_string();
                out.tok = Tok::String;
                break;
            case '[': out.tok = Tok::LBrack; break;
            case ']': out.tok = Tok::RBrack; break;
            case '{': out.tok = Tok::LBrace; break;
            case '}': out.tok = Tok::RBrace; break;
            case '(': out.tok = Tok::LParen; break;
            case ')': out.tok = Tok::RParen; break;
            case ',': out.tok = Tok::Comma; break;
            case ':': out.tok = two(Tok::Assign, Tok::Colon); break;
            case '+': out.tok = Tok::Add; break;
            case '-': out.tok = Tok::Sub; break;
            case '*': out.tok = Tok::Mul; break;
            case '/': out.tok = Tok::Quo; break;
            case '%': out.tok = Tok::Rem; break;
            case '&': out.tok = Tok::And; break;
            case '|': out.tok = Tok::Or; break;
            case '=': out.tok = two(Tok::Equal, Tok::Unify); break;
            case '>': out.tok = two(Tok::Gte, Tok::Gt); break;
            case '<': out.tok = two(Tok::Lte, Tok::Lt); break;
            case '!':
                if (curr_ == '=') {
                    next();
                    out.tok = Tok::Neq;
                } else {
                    error("illegal ! character");
                }
                break;
            case ';': out.tok = Tok::Semicolon; break;
            case '.': out.tok = Tok::Dot; break;
            default: break;  // any other character is an illegal token
        }
    }
    out.pos.end = offset_ - width_;
    out.errors = std::move(errors_);
    errors_.clear();
    return out;
}

}  // namespace gavel::lang::opa
