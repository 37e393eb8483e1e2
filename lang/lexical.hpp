#pragma once
// The terminals of the Rego grammar, as Spirit X3 primitive parsers.
//
// Rego is whitespace-sensitive in two places: body literals are separated by
// newlines (or `;`), and the postfix `.x`, `[x]`, `(args)` bind only when they
// touch the term before them. So the grammar runs without an X3 skipper; each
// terminal skips blanks and comments before itself (`pre-skip`), except the
// adjacent ones, and `newline_separator` looks at what was skipped.

#include <boost/spirit/home/x3.hpp>

#include <cstring>
#include <string>

#include "lang/ast.hpp"
#include "lang/parse_state.hpp"

namespace gavel::lang::lexical {

namespace x3 = boost::spirit::x3;

struct state_tag;

template <class Context>
ParseState& state_of(const Context& ctx) {
    return x3::get<state_tag>(ctx).get();
}

inline bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Skips blanks, line breaks and `#` comments; tells whether a line break was skipped.
inline bool skip_blank(const char*& p, const char* end) {
    bool newline = false;
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\r') {
            ++p;
        } else if (c == '\n') {
            newline = true;
            ++p;
        } else if (c == '#') {
            while (p < end && *p != '\n') ++p;
        } else {
            break;
        }
    }
    return newline;
}

enum class KeywordClass : uint8_t { Always, In, Every, If, Contains, Logic };

inline bool keyword_active(const ParseState& st, KeywordClass cls) {
    switch (cls) {
        case KeywordClass::Always: return true;
        case KeywordClass::In: return st.keywords.in;
        case KeywordClass::Every: return st.keywords.every;
        case KeywordClass::If: return st.keywords.if_;
        case KeywordClass::Contains: return st.keywords.contains;
        case KeywordClass::Logic: return st.keywords.logic;
    }
    return false;
}

// Is `word` a keyword in force? Such a word cannot name a variable.
bool is_active_keyword(const ParseState& st, std::string_view word);

// Punctuation and operators. `adjacent` tokens must touch what precedes them.
struct token_parser : x3::parser<token_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    const char* text;
    std::size_t size;
    bool adjacent;
    const char* not_followed_by;  // characters that must not follow (so `=` does not eat `==`)

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        const char* p = first;
        if (!adjacent) skip_blank(p, last);
        if (static_cast<std::size_t>(last - p) >= size && std::memcmp(p, text, size) == 0 &&
            !(p + size < last && not_followed_by && std::strchr(not_followed_by, p[size]))) {
            first = p + size;
            return true;
        }
        state_of(ctx).fail_at(p, text);
        return false;
    }
};

inline token_parser tok(const char* text, const char* not_followed_by = nullptr) {
    return {{}, text, std::strlen(text), false, not_followed_by};
}
inline token_parser adj(const char* text, const char* not_followed_by = nullptr) {
    return {{}, text, std::strlen(text), true, not_followed_by};
}

struct keyword_parser : x3::parser<keyword_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    const char* word;
    std::size_t size;
    KeywordClass cls;
    bool bracket_starts_ref = false;  // `in[`, as `in.`, is a name in OPA's parseTermIn (scanAheadRef)
    // ... except after a pair (`some k, v in[...]`, `every k, v in[...]`): OPA reads the `in` of
    // key-value membership as the keyword without looking ahead (ParseState::in_after_pair).
    bool keyword_after_pair = false;
    // `[` starts a ref only where a literal starts (`null[x]`, `true[x]`: OPA's parseLiteral).
    bool bracket_starts_ref_at_literal = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        auto& st = state_of(ctx);
        const char* p = first;
        skip_blank(p, last);
        // A keyword directly followed by `.` starts a ref (`else.foo := 1`), so it is no keyword there.
        if (keyword_active(st, cls) && p != st.name_at && static_cast<std::size_t>(last - p) >= size &&
            std::memcmp(p, word, size) == 0 &&
            !(p + size < last &&
              (is_ident_char(p[size]) || p[size] == '.' ||
               (bracket_starts_ref && p[size] == '[' && !(keyword_after_pair && st.in_after_pair)) ||
               (bracket_starts_ref_at_literal && p[size] == '[' && st.literal_starts.contains(p))))) {
            first = p + size;
            return true;
        }
        st.fail_at(p, word);
        return false;
    }
};

inline keyword_parser kw(const char* word, KeywordClass cls = KeywordClass::Always) {
    return {{}, word, std::strlen(word), cls};
}

// A name. `Var` (a rule head's) rejects keywords in force, except a keyword directly followed
// by `.` or `[` (`if.foo := 1`, `default[x] := 1` name rules; parse.cpp reads `contains[x]`
// itself, to refuse that name); `Term` takes `contains`, which
// OPA's parseTerm reads as a name anywhere but in a rule head, and a keyword directly followed
// by `.` or `[` only where a literal starts (`not.x`, `in[x]`); `Any` takes keywords too (after a dot);
// `AfterDot` is `Any` touching the dot before it, since `a. b` is no ref in OPA.
enum class IdentMode : uint8_t { Var, Term, Any, AfterDot };

struct identifier_parser : x3::parser<identifier_parser> {
    using attribute_type = TermPtr;
    IdentMode mode;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        auto& st = state_of(ctx);
        const char* p = first;
        if (mode != IdentMode::AfterDot) skip_blank(p, last);
        const char* start = p;
        if (p == last || !is_ident_start(*p)) {
            st.fail_at(start, "identifier");
            return false;
        }
        while (p < last && is_ident_char(*p)) ++p;
        std::string_view name(start, static_cast<std::size_t>(p - start));
        // `if.foo` is a ref and `contains(s, t)` the builtin, though both words are keywords.
        bool keyword_ref =
            p < last && ((*p == '.' && p + 1 < last && is_ident_start(p[1])) ||
                         ((mode == IdentMode::Var || mode == IdentMode::Term) && *p == '[' && name != "contains"));
        if (mode == IdentMode::Term && keyword_ref && !st.literal_starts.contains(start)) keyword_ref = false;
        bool contains_name = name == "contains" && (mode == IdentMode::Term || (p < last && *p == '('));
        if ((mode == IdentMode::Var || mode == IdentMode::Term) && is_active_keyword(st, name) && !keyword_ref &&
            !contains_name && start != st.name_at) {
            st.fail_at(start, "identifier");
            return false;
        }
        x3::traits::move_to(make_var(std::string(name), st.location(start, p)), attr);
        first = p;
        return true;
    }
};

inline identifier_parser ident(IdentMode mode = IdentMode::Var) { return {{}, mode}; }

// A number literal (digits[.digits][e[+-]digits], no sign) OPA's parser refuses with "number too
// big": its binary exponent (value = mantissa in [0.5, 1) * 2^exp) is beyond +-100,000. The bound
// keeps the cost of printing such numbers in check.
bool number_too_big(std::string_view literal);

// Numbers as OPA scans them; the literal text is kept (arbitrary precision).
struct number_parser : x3::parser<number_parser> {
    using attribute_type = TermPtr;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        auto& st = state_of(ctx);
        const char* p = first;
        skip_blank(p, last);
        const char* start = p;
        std::string text;
        if (p < last && *p == '-') {
            // OPA reads the sign as a token of its own: `- 1` is the number -1 too.
            text.push_back('-');
            ++p;
            skip_blank(p, last);
        }
        // OPA's parseNumber takes a leading dot as a token of its own too: `.5`, `. 5`, `-.5`
        // (its text, `.5`, is no JSON number; gavel keeps the value as `0.5`).
        bool leading_dot = false;
        if (p < last && *p == '.') {
            const char* q = p + 1;
            skip_blank(q, last);
            if (q < last && is_digit(*q)) {
                leading_dot = true;
                p = q;
            }
        }
        const char* digits = p;
        if (p == last || !is_digit(*p)) {
            st.fail_at(p, "number");
            return false;
        }
        while (p < last && is_digit(*p)) ++p;
        if (!leading_dot && p + 1 < last && *p == '.' && is_digit(p[1])) {
            ++p;
            while (p < last && is_digit(*p)) ++p;
        }
        if (p < last && (*p == 'e' || *p == 'E')) {
            const char* q = p + 1;
            if (q < last && (*q == '+' || *q == '-')) ++q;
            if (q < last && is_digit(*q)) {
                while (q < last && is_digit(*q)) ++q;
                p = q;
            }
        }
        if (p < last && is_ident_char(*p)) {
            st.fail_at(start, "number");
            return false;
        }
        // As OPA's parseNumber: `01` is refused (`0`, `0.5` and `0e1` are fine).
        if (!leading_dot && p - digits > 1 && digits[0] == '0' && digits[1] != '.' &&
            !(p - digits > 2 && (digits[1] == 'e' || digits[1] == 'E'))) {
            st.fail_because(digits, "expected number without leading zero");
            return false;
        }
        if (number_too_big(std::string_view(digits, static_cast<std::size_t>(p - digits))))
            st.error(digits, "number too big");  // reported, and the term kept: parsing goes on
        auto t = make_term(TermKind::Number, st.location(start, p));
        if (leading_dot) text += "0.";
        text.append(digits, p);
        t->text = std::move(text);
        x3::traits::move_to(std::move(t), attr);
        first = p;
        return true;
    }
};

// Decodes one escape after a backslash into out; returns false on a bad escape.
bool decode_escape(const char*& p, const char* end, std::string& out);

enum class StringStyle : uint8_t { Quoted, Raw };

// "..." with JSON's escapes, or `...` taken verbatim.
struct string_parser : x3::parser<string_parser> {
    using attribute_type = TermPtr;
    StringStyle style;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        auto& st = state_of(ctx);
        const char* p = first;
        skip_blank(p, last);
        const char* start = p;
        const char quote = style == StringStyle::Quoted ? '"' : '`';
        if (p == last || *p != quote) {
            st.fail_at(start, "string");
            return false;
        }
        ++p;
        std::string value;
        // OPA (newest) takes a quoted literal without escapes as it stands; one with escapes is
        // decoded as JSON, which refuses raw control characters ("illegal string literal").
        bool escaped = false, control = false;
        while (true) {
            if (p == last || (style == StringStyle::Quoted && *p == '\n')) {
                // As OPA: its scanner's error, then its parser's "illegal token" at the same place.
                st.error(start, "non-terminated string");
                st.fail_because(start, std::string(ParseState::kIllegalToken));
                return false;
            }
            char c = *p;
            if (c == quote) break;
            if (style == StringStyle::Quoted && c == '\\') {
                escaped = true;
                const char* esc = p;
                ++p;
                if (!decode_escape(p, last, value)) {
                    st.fail_at(esc, "escape sequence");
                    st.error(esc, "illegal escape sequence in string");
                    return false;
                }
                continue;
            }
            control = control || static_cast<unsigned char>(c) < 0x20;
            value.push_back(c);
            ++p;
        }
        ++p;
        if (style == StringStyle::Quoted && escaped && control) {
            st.fail_at(start, "string");
            return false;
        }
        auto t = make_string(std::move(value), st.location(start, p));
        t->boolean = style == StringStyle::Raw;
        x3::traits::move_to(std::move(t), attr);
        first = p;
        return true;
    }
};

// The literal text between `{expr}` parts of a template string. `\{` is a
// literal brace; quoted templates also take JSON escapes.
struct template_text_parser : x3::parser<template_text_parser> {
    using attribute_type = TermPtr;
    StringStyle style;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        auto& st = state_of(ctx);
        const char* p = first;
        const char quote = style == StringStyle::Quoted ? '"' : '`';
        std::string value;
        while (p < last && *p != quote && *p != '{') {
            if (style == StringStyle::Quoted && *p == '\n') break;
            if (*p == '\\') {
                if (p + 1 < last && p[1] == '{') {
                    value.push_back('{');
                    p += 2;
                    continue;
                }
                if (style == StringStyle::Quoted) {
                    const char* esc = p;
                    ++p;
                    if (!decode_escape(p, last, value)) {
                        st.fail_at(esc, "escape sequence");
                        st.error(esc, "illegal escape sequence in template string");
                        return false;
                    }
                    continue;
                }
            }
            value.push_back(*p++);
        }
        if (p == first) return false;
        x3::traits::move_to(make_string(std::move(value), st.location(first, p)), attr);
        first = p;
        return true;
    }
};

// Succeeds where a line break separates two body literals.
struct newline_parser : x3::parser<newline_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        const char* p = first;
        if (skip_blank(p, last)) {
            first = p;
            return true;
        }
        state_of(ctx).fail_at(p, "\\n");
        return false;
    }
};

// The position of the next token (blanks skipped), consuming nothing else.
struct mark_parser : x3::parser<mark_parser> {
    using attribute_type = const char*;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx&, RCtx&, Attr& attr) const {
        skip_blank(first, last);
        x3::traits::move_to(static_cast<const char*>(first), attr);
        return true;
    }
};

// The current position, where the previous token ended.
struct here_parser : x3::parser<here_parser> {
    using attribute_type = const char*;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It&, const Ctx&, RCtx&, Attr& attr) const {
        x3::traits::move_to(static_cast<const char*>(first), attr);
        return true;
    }
};

inline const number_parser number{};
inline const string_parser quoted_string{{}, StringStyle::Quoted};
inline const string_parser raw_string{{}, StringStyle::Raw};
inline const template_text_parser template_text_quoted{{}, StringStyle::Quoted};
inline const template_text_parser template_text_raw{{}, StringStyle::Raw};
inline const newline_parser newline_separator{};
inline const mark_parser mark{};
inline const here_parser here{};

}  // namespace gavel::lang::lexical
