#include "stdlib/go_regex.hpp"

#include "stdlib/compiled_cache.hpp"
#include "stdlib/unicode_text.hpp"
#include "support/utf8.hpp"

namespace gavel::stdlib::goregex {

namespace {

// Go's regexp/syntax wording for RE2's error codes.
const char* go_error_text(RE2::ErrorCode code) {
    switch (code) {
        case RE2::ErrorBadEscape: return "invalid escape sequence";
        case RE2::ErrorBadCharClass: return "invalid character class";
        case RE2::ErrorBadCharRange: return "invalid character class range";
        case RE2::ErrorMissingBracket: return "missing closing ]";
        case RE2::ErrorMissingParen: return "missing closing )";
        case RE2::ErrorUnexpectedParen: return "unexpected )";
        case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
        case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
        case RE2::ErrorRepeatSize: return "invalid repeat count";
        case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
        case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
        case RE2::ErrorBadUTF8: return "invalid UTF-8";
        case RE2::ErrorBadNamedCapture: return "invalid named capture";
        case RE2::ErrorPatternTooLarge: return "expression too large";
        default: return "regexp/syntax: internal error";
    }
}

CompiledCache<RE2>& cache() {
    static CompiledCache<RE2> c(1000);
    return c;
}

std::size_t rune_width_at(std::string_view s, std::size_t pos) {
    return pos < s.size() ? support::utf8::decode_rune(s, pos).width : 1;
}

bool match_at(const RE2& re, std::string_view text, std::size_t pos, int ngroups, std::vector<re2::StringPiece>& sub,
              Match& out) {
    // An empty text may have no storage; RE2 then reports an empty match at a null pointer, which
    // would read as "group not matched". Give it an address.
    if (text.data() == nullptr) text = std::string_view("", 0);
    sub.assign(static_cast<std::size_t>(ngroups), re2::StringPiece());
    if (!re.Match(re2::StringPiece(text.data(), text.size()), pos, text.size(), RE2::UNANCHORED, sub.data(), ngroups))
        return false;
    out.assign(2 * static_cast<std::size_t>(ngroups), -1);
    for (int g = 0; g < ngroups; ++g) {
        if (sub[static_cast<std::size_t>(g)].data() == nullptr) continue;
        auto start = sub[static_cast<std::size_t>(g)].data() - text.data();
        out[2 * static_cast<std::size_t>(g)] = start;
        out[2 * static_cast<std::size_t>(g) + 1] =
            start + static_cast<std::ptrdiff_t>(sub[static_cast<std::size_t>(g)].size());
    }
    return true;
}

bool is_name_char(char32_t r) {
    return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') || r == '_' || r >= 0x80;
}

// Go's Regexp.Expand for one match.
// False when the evaluation must stop (the text would cross its memory limit).
bool expand(std::string& dst, const RE2& re, std::string_view tmpl, std::string_view src, const Match& m,
            runtime::WorkBudget& budget) {
    while (!tmpl.empty()) {
        auto dollar = tmpl.find('$');
        if (dollar == std::string_view::npos) break;
        if (!budget.room(dst, dollar + 1)) return false;
        dst.append(tmpl.substr(0, dollar));
        tmpl.remove_prefix(dollar + 1);
        if (!tmpl.empty() && tmpl[0] == '$') {
            dst += '$';
            tmpl.remove_prefix(1);
            continue;
        }
        // extract: name or {name}
        std::string_view str = tmpl;
        bool brace = !str.empty() && str[0] == '{';
        if (brace) str.remove_prefix(1);
        std::size_t i = 0;
        while (i < str.size()) {
            auto d = support::utf8::decode_rune(str, i);
            if (!is_name_char(d.rune)) break;
            i += d.width;
        }
        bool ok = i > 0 && (!brace || (i < str.size() && str[i] == '}'));
        if (!ok) {
            dst += '$';
            continue;
        }
        std::string_view name = str.substr(0, i);
        tmpl = str.substr(i + (brace ? 1 : 0));
        std::int64_t num = 0;
        for (char c : name) {
            if (c < '0' || c > '9' || num >= 100000000) {
                num = -1;
                break;
            }
            num = num * 10 + (c - '0');
        }
        if (name.size() > 1 && name[0] == '0') num = -1;
        if (num < 0) {
            auto& names = re.NamedCapturingGroups();
            auto it = names.find(std::string(name));
            if (it == names.end()) continue;
            num = it->second;
        }
        auto k = static_cast<std::size_t>(2 * num);
        if (k + 1 < m.size() && m[k] >= 0) {
            auto group = src.substr(static_cast<std::size_t>(m[k]), static_cast<std::size_t>(m[k + 1] - m[k]));
            if (!budget.room(dst, group.size())) return false;
            dst.append(group);
        }
    }
    if (!budget.room(dst, tmpl.size())) return false;
    dst.append(tmpl);
    return true;
}

}  // namespace

Compiled compile(std::string_view pattern) {
    if (auto hit = cache().find(pattern)) return {hit, {}};
    RE2::Options opts;
    opts.set_log_errors(false);
    opts.set_encoding(RE2::Options::EncodingUTF8);
    auto re = std::make_shared<RE2>(std::string(pattern), opts);
    if (!re->ok()) {
        std::string msg = "error parsing regexp: ";
        msg += go_error_text(re->error_code());
        msg += ": `";
        msg += re->error_arg();
        msg += '`';
        return {nullptr, msg};
    }
    std::shared_ptr<const RE2> shared = re;
    cache().insert(pattern, shared);
    return {shared, {}};
}

std::optional<std::vector<Match>> find_all(const RE2& re, std::string_view text, std::int64_t n, bool groups,
                                           runtime::WorkBudget& budget) {
    std::vector<Match> out;
    if (n < 0) n = static_cast<std::int64_t>(text.size()) + 1;
    int ngroups = groups ? re.NumberOfCapturingGroups() + 1 : 1;
    // A match costs its search and its offsets (a few units of 16 bytes).
    const std::size_t units = 4 + static_cast<std::size_t>(ngroups);
    std::vector<re2::StringPiece> sub;
    Match m;
    std::ptrdiff_t prev_end = -1;
    std::size_t pos = 0;
    while (static_cast<std::int64_t>(out.size()) < n && pos <= text.size()) {
        if (budget.spend(units)) return std::nullopt;
        if (!match_at(re, text, pos, ngroups, sub, m)) break;
        bool accept = true;
        if (m[1] == static_cast<std::ptrdiff_t>(pos)) {
            if (m[0] == prev_end) accept = false;  // no empty match right after a match
            pos += rune_width_at(text, pos);
        } else {
            pos = static_cast<std::size_t>(m[1]);
        }
        prev_end = m[1];
        if (accept) out.push_back(m);
    }
    return out;
}

std::optional<std::vector<std::string_view>> split(const RE2& re, std::string_view pattern, std::string_view text,
                                                   runtime::WorkBudget& budget) {
    if (!pattern.empty() && text.empty()) return std::vector<std::string_view>{std::string_view{}};
    auto matches = find_all(re, text, -1, false, budget);
    if (!matches) return std::nullopt;
    std::vector<std::string_view> out;
    std::size_t beg = 0, end = 0;
    for (const auto& m : *matches) {
        end = static_cast<std::size_t>(m[0]);
        if (m[1] != 0) out.push_back(text.substr(beg, end - beg));
        beg = static_cast<std::size_t>(m[1]);
    }
    if (end != text.size()) out.push_back(text.substr(beg));
    return out;
}

std::optional<std::string> replace_all(const RE2& re, std::string_view text, std::string_view replacement,
                                       runtime::WorkBudget& budget) {
    bool expand_groups = replacement.find('$') != std::string_view::npos;
    int ngroups = expand_groups ? re.NumberOfCapturingGroups() + 1 : 1;
    std::vector<re2::StringPiece> sub;
    Match m;
    std::string out;
    std::size_t last = 0, pos = 0;
    while (pos <= text.size()) {
        if (budget.spend()) return std::nullopt;
        if (!match_at(re, text, pos, ngroups, sub, m)) break;
        auto a0 = static_cast<std::size_t>(m[0]), a1 = static_cast<std::size_t>(m[1]);
        if (!budget.room(out, a0 - last)) return std::nullopt;
        out.append(text.substr(last, a0 - last));
        if (a1 > last || a0 == 0) {
            if (expand_groups) {
                if (!expand(out, re, replacement, text, m, budget)) return std::nullopt;
            } else {
                if (!budget.room(out, replacement.size())) return std::nullopt;
                out.append(replacement);
            }
        }
        last = a1;
        std::size_t width = pos < text.size() ? support::utf8::decode_rune(text, pos).width : 0;
        if (pos + width > a1) pos += width;
        else if (pos + 1 > a1) ++pos;
        else pos = a1;
    }
    if (last < text.size()) {
        if (!budget.room(out, text.size() - last)) return std::nullopt;
        out.append(text.substr(last));
    }
    return out;
}

}  // namespace gavel::stdlib::goregex
