#include "stdlib/glob.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>
#include <fmt/format.h>
#include <re2/re2.h>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/compiled_cache.hpp"
#include "stdlib/string_operands.hpp"
#include "stdlib/unicode_text.hpp"
#include "support/utf8.hpp"

namespace gavel::stdlib {

namespace {

// ---- glob.match: gobwas/glob syntax --------------------------------------------
//   *  any run of non-separators    **  any run      ?  one non-separator
//   [abc] [!abc] [a-z] [!a-z]  one rune (separators included)
//   {a,b,...}  alternatives (nestable)   \c  literal c
// The pattern is translated into an anchored RE2 regex, which matches in
// linear time whatever the pattern.

struct GlobError {
    std::string message;
};

class GlobTranslator {
public:
    GlobTranslator(std::string_view pattern, std::span<const char32_t> seps) : p_(pattern), seps_(seps) {}

    // The regex, or throws GlobError with gobwas's message.
    std::string translate() {
        std::string out;
        std::vector<std::size_t> group_starts;  // positions of open "(?:" in out
        int depth = 0;
        while (pos_ < p_.size()) {
            char32_t r = read();
            if (r == '{') {
                ++depth;
                out += "(?:";
                continue;
            }
            if (r == ',' && depth > 0) {
                out += '|';
                continue;
            }
            if (r == '}' && depth > 0) {
                --depth;
                out += ')';
                continue;
            }
            if (r == '[') {
                out += read_class();
                continue;
            }
            if (r == '?') {
                out += seps_.empty() ? "(?s:.)" : "[^" + separator_class() + "]";
                continue;
            }
            if (r == '*') {
                if (pos_ < p_.size() && p_[pos_] == '*') {
                    ++pos_;
                    out += "(?s:.*)";
                } else {
                    out += seps_.empty() ? "(?s:.*)" : "[^" + separator_class() + "]*";
                }
                continue;
            }
            unread();
            out += read_text(depth > 0);
        }
        // gobwas accepts an unclosed '{' as if closed at the end.
        while (depth-- > 0) out += ')';
        return out;
    }

private:
    std::string_view p_;
    std::span<const char32_t> seps_;
    std::size_t pos_ = 0;
    std::size_t last_width_ = 0;

    char32_t read() {
        auto d = support::utf8::decode_rune(p_, pos_);
        if (d.rune == support::utf8::kReplacement && d.width == 1) throw GlobError{"invalid UTF-8 sequence"};
        pos_ += d.width;
        last_width_ = d.width;
        return d.rune;
    }
    void unread() { pos_ -= last_width_; }

    static std::string rune_escape(char32_t r) { return fmt::format("\\x{{{:x}}}", static_cast<std::uint32_t>(r)); }

    std::string separator_class() const {
        std::string s;
        for (char32_t r : seps_) s += rune_escape(r);
        return s;
    }

    // Literal runes up to the next special one; `\` escapes.
    std::string read_text(bool in_terms) {
        std::string lit;
        bool escaped = false;
        while (pos_ < p_.size()) {
            char32_t r = read();
            if (!escaped) {
                if (r == '\\') {
                    escaped = true;
                    continue;
                }
                bool breaker = r == '?' || r == '*' || r == '[' || r == '{' || (in_terms && (r == '}' || r == ','));
                if (breaker) {
                    unread();
                    break;
                }
            }
            escaped = false;
            support::utf8::append_rune(lit, r);
        }
        // A trailing `\` escapes nothing; gobwas's lexer drops it ("test\\" matches "test").
        return RE2::QuoteMeta(re2::StringPiece(lit.data(), lit.size()));
    }

    // After '[': either a list "[abc]" or one range "[a-z]", maybe negated.
    std::string read_class() {
        bool negated = false, seen_not = false;
        std::vector<char32_t> chars;
        char32_t lo = 0, hi = 0;
        bool is_range = false;
        while (true) {
            if (pos_ >= p_.size()) throw GlobError{"unexpected end of input"};
            char32_t r = read();
            if (!seen_not && r == '!') {
                negated = seen_not = true;
                continue;
            }
            if (pos_ < p_.size() && p_[pos_] == '-') {
                ++pos_;
                if (pos_ >= p_.size()) throw GlobError{"unexpected end of input"};
                lo = r;
                hi = read();
                if (hi < lo)
                    throw GlobError{
                        fmt::format("hi character '{}' should be greater than lo '{}'", to_utf8(hi), to_utf8(lo))};
                is_range = true;
            } else {
                unread();
                bool escaped = false;
                while (pos_ < p_.size()) {
                    char32_t c = read();
                    if (!escaped && c == '\\') {
                        escaped = true;
                        continue;
                    }
                    if (!escaped && c == ']') {
                        unread();
                        break;
                    }
                    escaped = false;
                    chars.push_back(c);
                }
            }
            if (pos_ >= p_.size()) throw GlobError{"unexpected end of input"};
            if (read() != ']') throw GlobError{"expected close range character"};
            break;
        }
        if (is_range == !chars.empty() || (is_range && (lo == 0 || hi == 0))) throw GlobError{"could not parse range"};
        std::string cls = negated ? "[^" : "[";
        if (is_range) cls += rune_escape(lo) + "-" + rune_escape(hi);
        else
            for (char32_t c : chars) cls += rune_escape(c);
        return cls + "]";
    }

    static std::string to_utf8(char32_t r) {
        std::string s;
        support::utf8::append_rune(s, r);
        return s;
    }
};

CompiledCache<RE2>& glob_cache() {
    static CompiledCache<RE2> c(1000);
    return c;
}

}  // namespace

GlobMatch gobwas_glob_match(std::string_view pattern, std::span<const char32_t> separators, std::string_view text) {
    thread_local std::string key;  // built again for each call: no allocation once it has grown
    key.assign(pattern);
    key += '-';
    for (char32_t s : separators) support::utf8::append_rune(key, s);
    auto re = glob_cache().find(key);
    if (!re) {
        std::string regex;
        try {
            regex = GlobTranslator(pattern, separators).translate();
        } catch (const GlobError& e) {
            return {false, e.message};
        }
        RE2::Options opts;
        opts.set_log_errors(false);
        auto compiled = std::make_shared<RE2>(regex, opts);
        if (!compiled->ok()) return {false, compiled->error()};
        re = compiled;
        glob_cache().insert(key, re);
    }
    return {RE2::FullMatch(re2::StringPiece(text.data(), text.size()), *re), {}};
}

namespace {

BuiltinResult glob_match(Args a) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    boost::container::small_vector<char32_t, 4> seps;
    if (a[1].is_array()) {
        for (const auto& e : a[1].array_elements()) {
            if (!e.is_string()) return element_type_error(2, a[1], e, "string");
            std::string_view s = e.as_string();
            // One rune (an invalid byte counts as one, as Go's []rune reads it).
            auto rune = s.empty() ? support::utf8::Rune{} : support::utf8::decode_rune(s, 0);
            if (s.empty() || rune.width != s.size())
                return BuiltinResult::type_error("operand 2 must be array of runes but got array containing string");
            seps.push_back(rune.rune);
        }
        if (seps.empty()) seps.push_back('.');
    } else if (!a[1].is_null()) {
        return operand_type_error_of(2, a[1], {"array", "null"});
    }
    if (!a[2].is_string()) return type_error(3, "string", a[2]);
    GlobMatch m = gobwas_glob_match(a[0].as_string(), {seps.data(), seps.size()}, a[2].as_string());
    if (!m.error.empty()) return BuiltinResult::error(m.error);
    return BuiltinResult::of(Value::boolean(m.matched));
}

// gobwas's QuoteMeta: escapes * ? \ [ ] { }.
std::string glob_quote_meta(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '*' || c == '?' || c == '\\' || c == '[' || c == ']' || c == '{' || c == '}') out += '\\';
        out += c;
    }
    return out;
}

// ---- regex.globs_match -----------------------------------------------------------
// Globs of literal runes, `.` (any rune) and `[...]` sets, each optionally
// followed by `*` or `+`. Two globs intersect when some string matches both:
// a reachability search over pairs of positions in the two token lists.

struct GlobToken {
    enum Kind { Char, Dot, Set } kind = Char;
    char32_t rune = 0;
    std::set<char32_t> set;
    char flag = 0;  // 0, '*', '+'
};

struct IntersectError {
    std::string message;
};

std::vector<GlobToken> tokenize_glob(std::string_view input) {
    auto runes = support::utf8::runes(input);
    auto fail = [&](std::size_t pos, const std::string& msg) -> IntersectError {
        return IntersectError{fmt::format("input:{}, pos:{}, {}: the input provided is invalid", input, pos, msg)};
    };
    // Reads one rune at i; sets escaped. Returns false at the end.
    auto next_rune = [&](std::size_t& i, char32_t& r, bool& escaped) {
        if (i >= runes.size()) return false;
        if (runes[i] == '\\') {
            if (i == runes.size() - 1) throw fail(i, "input ends with a \\ (escape) character");
            r = runes[i + 1];
            escaped = true;
            i += 2;
            return true;
        }
        r = runes[i++];
        escaped = false;
        return true;
    };
    std::vector<GlobToken> out;
    std::size_t i = 0;
    char32_t r = 0;
    bool escaped = false;
    while (next_rune(i, r, escaped)) {
        if (escaped) {
            out.push_back({GlobToken::Char, r, {}, 0});
            continue;
        }
        if (r == '.') {
            out.push_back({GlobToken::Dot, 0, {}, 0});
        } else if (r == ']') {
            throw fail(i, "set-close ']' with no preceding '['");
        } else if (r == '[') {
            GlobToken t;
            t.kind = GlobToken::Set;
            bool complete = false, prev_exists = false;
            char32_t prev = 0;
            while (!complete && next_rune(i, r, escaped)) {
                if (escaped) {
                    t.set.insert(r);
                    prev = r;
                    prev_exists = true;
                    continue;
                }
                if (r == '-') {
                    if (!prev_exists) throw fail(i, "range character '-' must be preceded by a Unicode character");
                    if (i >= runes.size()) throw fail(i, "range character '-' must be followed by a Unicode character");
                    next_rune(i, r, escaped);
                    if (!escaped && (r == ']' || r == '-'))
                        throw fail(i, "range character '-' cannot be followed by a special symbol");
                    if (r < prev) throw fail(i, "range is out of order");
                    if (r - prev > 0x10000) throw fail(i, "range is too large");
                    for (char32_t x = prev; x <= r; ++x) t.set.insert(x);
                    prev_exists = false;
                } else if (r == ']') {
                    complete = true;
                } else {
                    t.set.insert(r);
                    prev = r;
                    prev_exists = true;
                }
            }
            if (!complete) throw fail(i, "found [ without matching ]");
            out.push_back(std::move(t));
        } else if (r == '*' || r == '+') {
            if (out.empty() || out.back().flag != 0)
                throw fail(i, fmt::format("flag '{}' must be preceded by a non-flag", static_cast<char>(r)));
            out.back().flag = static_cast<char>(r);
        } else {
            out.push_back({GlobToken::Char, r, {}, 0});
        }
    }
    return out;
}

bool tokens_overlap(const GlobToken& a, const GlobToken& b) {
    if (a.kind == GlobToken::Dot || b.kind == GlobToken::Dot) return true;
    if (a.kind == GlobToken::Char && b.kind == GlobToken::Char) return a.rune == b.rune;
    if (a.kind == GlobToken::Char) return b.set.contains(a.rune);
    if (b.kind == GlobToken::Char) return a.set.contains(b.rune);
    for (char32_t r : a.set)
        if (b.set.contains(r)) return true;
    return false;
}

// `x+` is `x x*`.
std::vector<GlobToken> expand_plus(std::vector<GlobToken> g) {
    std::vector<GlobToken> out;
    for (auto& t : g) {
        if (t.flag == '+') {
            GlobToken once = t;
            once.flag = 0;
            out.push_back(once);
            t.flag = '*';
        }
        out.push_back(std::move(t));
    }
    return out;
}

bool globs_intersect(const std::vector<GlobToken>& g1, const std::vector<GlobToken>& g2) {
    std::size_t n1 = g1.size() + 1, n2 = g2.size() + 1;
    if (n1 * n2 > (std::size_t{1} << 26)) throw IntersectError{"globs too large to intersect"};
    std::vector<bool> seen(n1 * n2, false);
    std::vector<std::pair<std::size_t, std::size_t>> stack{{0, 0}};
    seen[0] = true;
    auto push = [&](std::size_t i, std::size_t j) {
        if (!seen[i * n2 + j]) {
            seen[i * n2 + j] = true;
            stack.emplace_back(i, j);
        }
    };
    while (!stack.empty()) {
        auto [i, j] = stack.back();
        stack.pop_back();
        if (i == g1.size() && j == g2.size()) return true;
        if (i < g1.size() && g1[i].flag == '*') push(i + 1, j);
        if (j < g2.size() && g2[j].flag == '*') push(i, j + 1);
        if (i < g1.size() && j < g2.size() && tokens_overlap(g1[i], g2[j]))
            push(g1[i].flag == '*' ? i : i + 1, g2[j].flag == '*' ? j : j + 1);
    }
    return false;
}

BuiltinResult globs_match(Args a) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    try {
        auto g1 = expand_plus(tokenize_glob(a[0].as_string()));
        auto g2 = expand_plus(tokenize_glob(a[1].as_string()));
        return BuiltinResult::of(Value::boolean(globs_intersect(g1, g2)));
    } catch (const IntersectError& e) {
        return BuiltinResult::error(e.message);
    }
}

}  // namespace

void register_glob(Registry& r) {
    declare(r, "glob.match", 3, [](Args a, BuiltinContext&) { return glob_match(a); });
    declare(r, "glob.quote_meta", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        return BuiltinResult::of(Value::string(glob_quote_meta(a[0].as_string())));
    });
    declare(r, "regex.globs_match", 2, [](Args a, BuiltinContext&) { return globs_match(a); });
}

}  // namespace gavel::stdlib
