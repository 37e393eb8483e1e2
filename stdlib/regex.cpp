// regex.* and re_match on RE2 with Go's regexp semantics (go_regex.hpp);
// the glob builtins live in glob.cpp and register from here.

#include <fmt/format.h>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/glob.hpp"
#include "stdlib/go_format.hpp"
#include "stdlib/go_regex.hpp"
#include "stdlib/string_operands.hpp"

namespace gavel::stdlib {

namespace {

Value string_value(std::string_view s) { return Value::string(s); }

// Checks operands 1..n are strings.
bool strings_ok(Args a, std::size_t n, BuiltinResult& err) {
    for (std::size_t i = 0; i < n; ++i) {
        if (!a[i].is_string()) {
            err = type_error(i + 1, "string", a[i]);
            return false;
        }
    }
    return true;
}

BuiltinResult regex_match(Args a) {
    BuiltinResult err;
    if (!strings_ok(a, 2, err)) return err;
    auto c = goregex::compile(a[0].as_string());
    if (!c.re) return BuiltinResult::error(c.error);
    auto s = a[1].as_string();
    return BuiltinResult::of(Value::boolean(RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *c.re)));
}

BuiltinResult regex_find(Args a, bool submatches, BuiltinContext& ctx) {
    BuiltinResult err;
    if (!strings_ok(a, 2, err)) return err;
    std::int64_t n = 0;
    if (!int_operand(a[2], 3, n, err)) return err;
    auto c = goregex::compile(a[0].as_string());
    if (!c.re) return BuiltinResult::error(c.error);
    std::string_view text = a[1].as_string();
    auto matches = goregex::find_all(*c.re, text, n, submatches, ctx);
    if (!matches) return BuiltinResult::cancelled();
    runtime::ArrayBuilder out(matches->size());
    auto piece = [&](const goregex::Match& m, std::size_t g) {
        if (m[2 * g] < 0) return string_value("");
        return string_value(
            text.substr(static_cast<std::size_t>(m[2 * g]), static_cast<std::size_t>(m[2 * g + 1] - m[2 * g])));
    };
    for (const auto& m : *matches) {
        // Each piece is a string of its own: its bytes are memory too.
        if (ctx.spend(m.size() + static_cast<std::size_t>(m[1] - m[0]) / 16)) return BuiltinResult::cancelled();
        if (!submatches) {
            out.push_back(piece(m, 0));
            continue;
        }
        runtime::ArrayBuilder groups(m.size() / 2);
        for (std::size_t g = 0; g < m.size() / 2; ++g) groups.push_back(piece(m, g));
        out.push_back(groups.build());
    }
    return BuiltinResult::of(out.build());
}

BuiltinResult regex_split(Args a, BuiltinContext& ctx) {
    BuiltinResult err;
    if (!strings_ok(a, 2, err)) return err;
    std::string pattern(a[0].as_string());
    auto c = goregex::compile(pattern);
    if (!c.re) return BuiltinResult::error(c.error);
    auto parts = goregex::split(*c.re, pattern, a[1].as_string(), ctx);
    if (!parts) return BuiltinResult::cancelled();
    runtime::ArrayBuilder out(parts->size());
    for (auto p : *parts) {
        if (ctx.spend(4 + p.size() / 16)) return BuiltinResult::cancelled();
        out.push_back(string_value(p));
    }
    return BuiltinResult::of(out.build());
}

BuiltinResult regex_replace(Args a, BuiltinContext& ctx) {
    BuiltinResult err;
    if (!strings_ok(a, 3, err)) return err;
    auto c = goregex::compile(a[1].as_string());
    if (!c.re) return BuiltinResult::error(c.error);
    auto out = goregex::replace_all(*c.re, a[0].as_string(), a[2].as_string(), ctx);
    if (!out) return BuiltinResult::cancelled();
    if (*out == a[0].as_string()) return BuiltinResult::of(a[0]);
    return text_result(ctx, *out);
}

// regex.template_match: text outside the delimiters is literal, inside is a
// regex; the whole must match (gorilla/mux's scheme, as OPA forked it).
BuiltinResult regex_template_match(Args a) {
    BuiltinResult err;
    if (!strings_ok(a, 4, err)) return err;
    std::string_view tpl = a[0].as_string(), start = a[2].as_string(), end = a[3].as_string();
    if (start.size() != 1)
        return BuiltinResult::error(
            fmt::format("start delimiter has to be exactly one character long but is {} long", start.size()));
    if (end.size() != 1)  // OPA reports the start delimiter's length here
        return BuiltinResult::error(
            fmt::format("end delimiter has to be exactly one character long but is {} long", start.size()));
    std::vector<std::size_t> idxs;
    int level = 0;
    std::size_t open = 0;
    for (std::size_t i = 0; i < tpl.size(); ++i) {
        if (tpl[i] == start[0]) {
            if (++level == 1) open = i;
        } else if (tpl[i] == end[0]) {
            if (--level == 0) {
                idxs.push_back(open);
                idxs.push_back(i + 1);
            } else if (level < 0) {
                break;
            }
        }
    }
    if (level != 0) {
        std::string q;
        gofmt::append_quoted(q, tpl);
        return BuiltinResult::error(fmt::format("unbalanced braces in {}", q));
    }
    std::string pattern = "^";
    std::size_t last = 0;
    for (std::size_t i = 0; i < idxs.size(); i += 2) {
        std::string_view raw = tpl.substr(last, idxs[i] - last);
        last = idxs[i + 1];
        std::string_view inner = tpl.substr(idxs[i] + 1, last - idxs[i] - 2);
        pattern += RE2::QuoteMeta(re2::StringPiece(raw.data(), raw.size()));
        auto sub = goregex::compile('^' + std::string(inner) + "$");
        if (!sub.re) return BuiltinResult::error(sub.error);
        pattern += "(";
        pattern += inner;
        pattern += ")";
    }
    std::string_view rest = tpl.substr(last);
    pattern += RE2::QuoteMeta(re2::StringPiece(rest.data(), rest.size()));
    pattern += "$";
    auto c = goregex::compile(pattern);
    if (!c.re) return BuiltinResult::error(c.error);
    auto s = a[1].as_string();
    return BuiltinResult::of(Value::boolean(RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), *c.re)));
}

}  // namespace

void register_regex(Registry& r) {
    declare(r, "regex.is_valid", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return BuiltinResult::of(Value::boolean(false));
        return BuiltinResult::of(Value::boolean(goregex::compile(a[0].as_string()).re != nullptr));
    });
    declare(r, "regex.match", 2, [](Args a, BuiltinContext&) { return regex_match(a); });
    Builtin re_match;
    re_match.name = "re_match";
    re_match.arity = 2;
    re_match.impl = [](Args a, BuiltinContext&) { return regex_match(a); };
    r.add(std::move(re_match));
    declare(r, "regex.find_n", 3, [](Args a, BuiltinContext& ctx) { return regex_find(a, false, ctx); });
    declare(r, "regex.find_all_string_submatch_n", 3,
            [](Args a, BuiltinContext& ctx) { return regex_find(a, true, ctx); });
    declare(r, "regex.split", 2, [](Args a, BuiltinContext& ctx) { return regex_split(a, ctx); });
    declare(r, "regex.replace", 3, [](Args a, BuiltinContext& ctx) { return regex_replace(a, ctx); });
    declare(r, "regex.template_match", 4, [](Args a, BuiltinContext&) { return regex_template_match(a); });
    register_glob(r);
}

}  // namespace gavel::stdlib
