// String builtins with Go's semantics (OPA implements them on Go's strings
// package): indexes and lengths count code points, case mapping is Unicode,
// sprintf is Go's fmt (go_format.hpp).

#include <algorithm>
#include <array>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "runtime/bigint.hpp"
#include "runtime/go_json_decode.hpp"
#include "runtime/value_format.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/go_format.hpp"
#include "stdlib/string_operands.hpp"
#include "stdlib/text_template.hpp"
#include "stdlib/unicode_text.hpp"
#include "support/go_space.hpp"
#include "support/utf8.hpp"

namespace gavel::stdlib {

namespace {

Value str(std::string_view s) { return Value::string(s); }

// Go's strings.Split (and OPA's "no delimiter found" shortcut); nullopt when
// the evaluation must stop (a part is 16 bytes of the list).
std::optional<std::vector<std::string_view>> go_split(std::string_view s, std::string_view sep, BuiltinContext& ctx) {
    std::vector<std::string_view> out;
    if (sep.empty()) {
        for (std::size_t i = 0; i < s.size();) {
            if (ctx.spend()) return std::nullopt;
            auto w = support::utf8::decode_rune(s, i).width;
            out.push_back(s.substr(i, w));
            i += w;
        }
        return out;
    }
    std::size_t start = 0;
    while (true) {
        if (ctx.spend()) return std::nullopt;
        auto pos = text::find(s, sep, start);
        if (pos == std::string_view::npos) break;
        out.push_back(s.substr(start, pos - start));
        start = pos + sep.size();
    }
    out.push_back(s.substr(start));
    return out;
}

// Parts as an array of strings; cancelled when the evaluation must stop while building it.
BuiltinResult string_array(const std::vector<std::string_view>& parts, std::size_t from, std::size_t to,
                           BuiltinContext& ctx) {
    runtime::ArrayBuilder b(to - from);
    for (std::size_t i = from; i < to; ++i) {
        if (ctx.spend(3 + parts[i].size() / 16)) return BuiltinResult::cancelled();  // a string of its own
        if (!b.push_back(str(parts[i]), ctx)) return BuiltinResult::cancelled();
    }
    return array_result(std::move(b), ctx);
}

// Go's strings.Replacer: at each byte position the first (old, new) pair
// whose old string starts there wins; an empty old string matches between
// bytes, but not twice at the same position. The result grows only within
// the evaluation's memory limit: nullopt when it must stop.
std::optional<std::string> go_replace(std::string_view s, const std::vector<std::pair<std::string, std::string>>& pairs,
                                      BuiltinContext& ctx) {
    if (pairs.size() == 1 && !pairs[0].first.empty()) {
        // One pair: the result's size is known from the number of matches, so
        // it is refused before it is built if it would cross the memory limit.
        const auto& [old, neu] = pairs[0];
        std::size_t matches = 0;
        const bool grows = neu.size() > old.size();
        for (auto pos = text::find(s, old); pos != std::string_view::npos; pos = text::find(s, old, pos + old.size())) {
            if (ctx.spend()) return std::nullopt;
            ++matches;
            // A growing result is refused as soon as the matches so far are too many.
            if (grows && matches % 4096 == 0 && !ctx.affords(s.size() + matches * (neu.size() - old.size())))
                return std::nullopt;
        }
        // (Both factors are sizes of strings in memory: the product fits 64 bits.)
        const std::size_t size = s.size() - matches * old.size() + matches * neu.size();
        if (!ctx.affords(size)) return std::nullopt;
        std::string out;
        out.reserve(size);
        std::size_t start = 0;
        while (true) {
            if (ctx.spend(1 + neu.size() / 16)) return std::nullopt;
            auto pos = text::find(s, old, start);
            if (pos == std::string_view::npos) break;
            out.append(s.substr(start, pos - start));
            out += neu;
            start = pos + old.size();
        }
        out.append(s.substr(start));
        return out;
    }
    std::string out;
    std::size_t last = 0;
    bool prev_match_empty = false;
    for (std::size_t i = 0; i <= s.size();) {
        if (ctx.spend(pairs.size())) return std::nullopt;
        const std::pair<std::string, std::string>* match = nullptr;
        for (const auto& p : pairs) {
            if (p.first.empty() && prev_match_empty) continue;
            if (s.substr(i).starts_with(p.first)) {
                match = &p;
                break;
            }
        }
        prev_match_empty = match && match->first.empty();
        if (match) {
            if (!ctx.room(out, i - last + match->second.size())) return std::nullopt;
            out.append(s.substr(last, i - last));
            out += match->second;
            i += match->first.size();
            last = i;
            continue;
        }
        ++i;
    }
    if (last < s.size()) {
        if (!ctx.room(out, s.size() - last)) return std::nullopt;
        out.append(s.substr(last));
    }
    return out;
}

bool in_cutset(char32_t r, const std::vector<char32_t>& cutset) {
    return std::find(cutset.begin(), cutset.end(), r) != cutset.end();
}

std::string_view trim_left_runes(std::string_view s, const std::vector<char32_t>& cutset) {
    std::size_t i = 0;
    while (i < s.size()) {
        auto d = support::utf8::decode_rune(s, i);
        if (!in_cutset(d.rune, cutset)) break;
        i += d.width;
    }
    return s.substr(i);
}

std::string_view trim_right_runes(std::string_view s, const std::vector<char32_t>& cutset) {
    std::size_t end = s.size();
    while (end > 0) {
        std::size_t start = support::utf8::last_rune_start(s, end);
        if (!in_cutset(support::utf8::decode_rune(s, start).rune, cutset)) break;
        end = start;
    }
    return s.substr(0, end);
}

// Index (in runes) of each occurrence of `needle` in `hay`; first only if
// !all. Rune by rune, as OPA's (invalid bytes all read as U+FFFD), and as
// OPA's quadratic at worst: each rune compared counts as work, and nullopt
// says the evaluation must stop.
std::optional<std::vector<std::int64_t>> rune_indexes(std::string_view hay, std::string_view needle, bool all,
                                                      BuiltinContext& ctx) {
    std::vector<std::int64_t> out;
    if (!ctx.affords(hay.size() * sizeof(char32_t))) return std::nullopt;
    auto h = support::utf8::runes(hay);
    auto n = support::utf8::runes(needle);
    if (n.empty()) return out;
    for (std::size_t i = 0; i + n.size() <= h.size(); ++i) {
        auto at = h.begin() + static_cast<std::ptrdiff_t>(i);
        auto stop = std::mismatch(n.begin(), n.end(), at).first;
        if (ctx.spend(1 + static_cast<std::size_t>(stop - n.begin()) / 16)) return std::nullopt;
        if (stop == n.end()) {
            out.push_back(static_cast<std::int64_t>(i));
            if (!all) break;
        }
    }
    return out;
}

// Go's []rune -> string reversal.
std::string reverse_runes(std::string_view s) {
    auto rs = support::utf8::runes(s);
    std::reverse(rs.begin(), rs.end());
    return support::utf8::encode(rs);
}

// The strings of a string/array/set operand (any_prefix_match & co).
bool string_list(const Value& v, std::size_t pos, std::vector<std::string_view>& out, BuiltinResult& err) {
    if (v.is_string()) {
        out.push_back(v.as_string());
        return true;
    }
    if (!v.is_array() && !v.is_set()) {
        err = operand_type_error_of(pos, v, {"string", "set", "array"});
        return false;
    }
    return string_elements(v, pos, out, err);
}

// Every string against every affix: the work is the product of their counts.
BuiltinResult any_affix_match(Args a, bool suffix, BuiltinContext& ctx) {
    std::vector<std::string_view> strs, affixes;
    BuiltinResult err;
    if (!string_list(a[0], 1, strs, err)) return err;
    if (!string_list(a[1], 2, affixes, err)) return err;
    for (auto s : strs) {
        if (ctx.spend(1 + affixes.size())) return BuiltinResult::cancelled();
        for (auto p : affixes)
            if (suffix ? s.ends_with(p) : s.starts_with(p)) return BuiltinResult::of(Value::boolean(true));
    }
    return BuiltinResult::of(Value::boolean(false));
}

BuiltinImpl string_predicate(bool (*pred)(std::string_view, std::string_view)) {
    return [pred](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        return BuiltinResult::of(Value::boolean(pred(a[0].as_string(), a[1].as_string())));
    };
}

// A builtin of one string operand giving a string (at most a few times as long).
BuiltinImpl string_map(std::string (*fn)(std::string_view)) {
    return [fn](Args a, BuiltinContext& ctx) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!ctx.affords(3 * a[0].size())) return BuiltinResult::cancelled();
        std::string out = fn(a[0].as_string());
        if (out == a[0].as_string()) return BuiltinResult::of(a[0]);
        return text_result(ctx, out);
    };
}

// A builtin of two string operands giving a string (no longer than the first).
BuiltinImpl string_map2(std::string (*fn)(std::string_view, std::string_view)) {
    return [fn](Args a, BuiltinContext& ctx) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        std::string out = fn(a[0].as_string(), a[1].as_string());
        if (out == a[0].as_string()) return BuiltinResult::of(a[0]);
        return text_result(ctx, out);
    };
}

// OPA hands Go's fmt an int, a *big.Int, a float64 or a string per operand
// (a collection as its Rego text, which may be far larger than the value:
// nullopt when writing it must stop).
std::optional<gofmt::Arg> sprintf_arg(const Value& v, BuiltinContext& ctx) {
    if (v.is_string()) return gofmt::Arg::string(std::string(v.as_string()));
    if (!v.is_number()) {
        std::string text;
        if (!append_formatted(text, v, ctx)) return std::nullopt;
        return gofmt::Arg::string(std::move(text));
    }
    std::string t = v.as_number().to_string();
    std::string_view digits = t;
    if (!digits.empty() && digits[0] == '-') digits.remove_prefix(1);
    bool integral =
        !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (integral) {
        std::int64_t i = 0;
        if (v.as_int64(i)) return gofmt::Arg::integer(i);
        try {
            return gofmt::Arg::big_integer(runtime::BigInt(t));
        } catch (...) {}
    }
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (end && *end == '\0' && std::isfinite(d)) return gofmt::Arg::floating(d);
    return gofmt::Arg::string(t);
}

// The common `sprintf("... %v ...", [s])` with string operands only: Go's
// %v and %s print a string as it is, so the result is the format's text and
// the operands joined, with no formatting machinery. False when the format
// needs anything more (flags, widths, other verbs) or has many parts.
bool sprintf_plain_strings(std::string_view format, std::span<const Value> operands, Value& out, BuiltinContext& ctx) {
    std::array<std::string_view, 16> parts;
    std::size_t count = 0;
    std::size_t next = 0;
    for (std::size_t i = 0; i < format.size();) {
        if (count + 2 > parts.size()) return false;
        std::size_t pct = format.find('%', i);
        if (pct == std::string_view::npos) pct = format.size();
        parts[count++] = format.substr(i, pct - i);
        if (pct == format.size()) break;
        if (pct + 1 >= format.size()) return false;
        char verb = format[pct + 1];
        if (verb == '%') {
            parts[count++] = format.substr(pct + 1, 1);
        } else if ((verb == 'v' || verb == 's') && next < operands.size() && operands[next].is_string()) {
            parts[count++] = operands[next++].as_string();
        } else {
            return false;
        }
        i = pct + 2;
    }
    if (next != operands.size()) return false;
    std::size_t size = 0;
    for (std::size_t i = 0; i < count; ++i) size += parts[i].size();
    if (!ctx.affords(size)) return false;  // the general path stops the evaluation
    out = Value::string_concat(std::span<const std::string_view>(parts.data(), count));
    return true;
}

BuiltinResult sprintf(Args a, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_array()) return type_error(2, "array", a[1]);
    if (Value plain; sprintf_plain_strings(a[0].as_string(), a[1].array_elements(), plain, ctx))
        return BuiltinResult::of(std::move(plain));
    if (ctx.memory.exceeded()) return BuiltinResult::cancelled();  // the plain result was refused
    std::vector<gofmt::Arg> args;
    args.reserve(a[1].size());
    for (const auto& v : a[1].array_elements()) {
        auto arg = sprintf_arg(v, ctx);
        if (!arg) return BuiltinResult::cancelled();
        args.push_back(std::move(*arg));
    }
    auto out = gofmt::sprintf(a[0].as_string(), args, ctx);
    if (!out) return BuiltinResult::cancelled();
    return text_result(ctx, *out);
}

// The separator goes between every two parts: the result (whose size is known
// before it is built) can be far larger than the operands.
BuiltinResult concat(Args a, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_array() && !a[1].is_set()) return operand_type_error_of(2, a[1], {"set", "array"});
    std::vector<std::string_view> parts;
    BuiltinResult err;
    if (!string_elements(a[1], 2, parts, err)) return err;
    std::string_view sep = a[0].as_string();
    std::size_t size = parts.empty() ? 0 : sep.size() * (parts.size() - 1);
    for (auto p : parts) size += p.size();
    if (ctx.spend(parts.size() + size / 16) || !ctx.affords(size + 64)) return BuiltinResult::cancelled();
    std::vector<std::string_view> pieces;
    pieces.reserve(parts.empty() ? 0 : 2 * parts.size() - 1);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) pieces.push_back(sep);
        pieces.push_back(parts[i]);
    }
    return BuiltinResult::of(Value::string_concat(pieces));
}

BuiltinResult indexof(Args a, bool all, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    std::string_view s = a[0].as_string(), needle = a[1].as_string();
    if (needle.empty()) return BuiltinResult::error("empty search character");
    if (!all) {
        if (text::is_ascii(s) && text::is_ascii(needle)) {
            auto pos = text::find(s, needle);
            return BuiltinResult::of(
                Value::integer(pos == std::string_view::npos ? -1 : static_cast<std::int64_t>(pos)));
        }
        auto idx = rune_indexes(s, needle, false, ctx);
        if (!idx) return BuiltinResult::cancelled();
        return BuiltinResult::of(Value::integer(idx->empty() ? -1 : (*idx)[0]));
    }
    auto idx = rune_indexes(s, needle, true, ctx);
    if (!idx) return BuiltinResult::cancelled();
    runtime::ArrayBuilder b(idx->size());
    for (auto i : *idx) b.push_back(Value::integer(i));
    return BuiltinResult::of(b.build());
}

BuiltinResult substring(Args a, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    std::int64_t start = 0, length = 0;
    BuiltinResult err;
    if (!int_operand(a[1], 2, start, err)) return err;
    if (!int_operand(a[2], 3, length, err)) return err;
    if (start < 0) return BuiltinResult::error("negative offset");
    std::string_view s = a[0].as_string();
    if (!ctx.affords(sizeof(char32_t) * s.size())) return BuiltinResult::cancelled();  // the runes, four bytes each
    auto rs = support::utf8::runes(s);
    auto n = static_cast<std::int64_t>(rs.size());
    if (start >= n) return BuiltinResult::of(str(""));
    if (start == 0 && length >= n) return BuiltinResult::of(a[0]);
    std::int64_t upto = length < 0 ? n : std::min(n, start + length);
    if (text::is_ascii(s))
        return BuiltinResult::of(
            str(s.substr(static_cast<std::size_t>(start), static_cast<std::size_t>(upto - start))));
    return BuiltinResult::of(
        str(support::utf8::encode(rs, static_cast<std::size_t>(start), static_cast<std::size_t>(upto))));
}

BuiltinResult split(Args a, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    std::string_view s = a[0].as_string(), delim = a[1].as_string();
    if (text::find(s, delim) == std::string_view::npos) return BuiltinResult::of(Value::array({a[0]}));
    auto parts = go_split(s, delim, ctx);
    if (!parts) return BuiltinResult::cancelled();
    return string_array(*parts, 0, parts->size(), ctx);
}

// strings.split_n: n > 0 keeps the first n parts, n < 0 the last -n, 0 none.
BuiltinResult split_n(Args a, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    std::int64_t n = 0;
    BuiltinResult err;
    if (!int_operand(a[2], 3, n, err)) return err;
    auto split = go_split(a[0].as_string(), a[1].as_string(), ctx);
    if (!split) return BuiltinResult::cancelled();
    auto& parts = *split;
    if (a[0].as_string().empty()) parts = {std::string_view{}};
    auto size = static_cast<std::int64_t>(parts.size());
    if (n >= 0) return string_array(parts, 0, static_cast<std::size_t>(std::min(n, size)), ctx);
    std::int64_t keep = n < -size ? size : -n;
    return string_array(parts, static_cast<std::size_t>(size - keep), parts.size(), ctx);
}

BuiltinResult replace(Args a, BuiltinContext& ctx) {
    for (std::size_t i = 0; i < 3; ++i)
        if (!a[i].is_string()) return type_error(i + 1, "string", a[i]);
    auto out = go_replace(a[0].as_string(), {{std::string(a[1].as_string()), std::string(a[2].as_string())}}, ctx);
    if (!out) return BuiltinResult::cancelled();
    if (*out == a[0].as_string()) return BuiltinResult::of(a[0]);
    return text_result(ctx, *out);
}

BuiltinResult replace_n(Args a, BuiltinContext& ctx) {
    if (!a[0].is_object()) return type_error(1, "object", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const auto& e : a[0].object_entries()) {  // sorted by key, as OPA sorts them
        if (!e.key.is_string()) return BuiltinResult::type_error("operand 1 non-string key found in pattern object");
        if (!e.value.is_string())
            return BuiltinResult::type_error("operand 1 non-string value found in pattern object");
        pairs.emplace_back(e.key.as_string(), e.value.as_string());
    }
    if (pairs.empty()) return BuiltinResult::of(a[1]);
    auto out = go_replace(a[1].as_string(), pairs, ctx);
    if (!out) return BuiltinResult::cancelled();
    return text_result(ctx, *out);
}

BuiltinResult count(Args a, BuiltinContext& ctx) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    if (!a[1].is_string()) return type_error(2, "string", a[1]);
    std::string_view s = a[0].as_string(), sub = a[1].as_string();
    if (sub.empty())
        return BuiltinResult::of(Value::integer(static_cast<std::int64_t>(support::utf8::rune_count(s)) + 1));
    std::int64_t n = 0;
    for (auto pos = text::find(s, sub); pos != std::string_view::npos; pos = text::find(s, sub, pos + sub.size())) {
        if (ctx.spend()) return BuiltinResult::cancelled();
        ++n;
    }
    return BuiltinResult::of(Value::integer(n));
}

// No set and no key other than a string anywhere in `v` (iteratively: values nest deeply).
bool json_shaped(const Value& v) {
    std::vector<const Value*> pending{&v};
    while (!pending.empty()) {
        const Value* x = pending.back();
        pending.pop_back();
        if (x->is_set()) return false;
        if (x->is_array())
            for (const auto& e : x->array_elements()) pending.push_back(&e);
        if (x->is_object())
            for (const auto& e : x->object_entries()) {
                if (!e.key.is_string()) return false;
                pending.push_back(&e.value);
            }
    }
    return true;
}

}  // namespace

void register_strings(Registry& r) {
    declare(r, "startswith", 2,
            string_predicate([](std::string_view s, std::string_view p) { return s.starts_with(p); }));
    declare(r, "endswith", 2, string_predicate([](std::string_view s, std::string_view p) { return s.ends_with(p); }));
    declare(r, "contains", 2, string_predicate([](std::string_view s, std::string_view p) {
                return text::find(s, p) != std::string_view::npos;
            }));
    declare(r, "sprintf", 2, [](Args a, BuiltinContext& ctx) { return sprintf(a, ctx); });
    declare(r, "concat", 2, [](Args a, BuiltinContext& ctx) { return concat(a, ctx); });
    declare(r, "lower", 1, string_map([](std::string_view s) { return text::lower(s); }));
    declare(r, "upper", 1, string_map([](std::string_view s) { return text::upper(s); }));
    declare(r, "indexof", 2, [](Args a, BuiltinContext& ctx) { return indexof(a, false, ctx); });
    declare(r, "indexof_n", 2, [](Args a, BuiltinContext& ctx) { return indexof(a, true, ctx); });
    declare(r, "substring", 3, [](Args a, BuiltinContext& ctx) { return substring(a, ctx); });
    declare(r, "split", 2, [](Args a, BuiltinContext& ctx) { return split(a, ctx); });
    declare(r, "strings.split_n", 3, [](Args a, BuiltinContext& ctx) { return split_n(a, ctx); });
    declare(r, "replace", 3, [](Args a, BuiltinContext& ctx) { return replace(a, ctx); });
    declare(r, "strings.replace_n", 2, [](Args a, BuiltinContext& ctx) { return replace_n(a, ctx); });
    declare(r, "strings.count", 2, [](Args a, BuiltinContext& ctx) { return count(a, ctx); });
    declare(r, "strings.reverse", 1, string_map([](std::string_view s) { return reverse_runes(s); }));
    declare(r, "strings.any_prefix_match", 2,
            [](Args a, BuiltinContext& ctx) { return any_affix_match(a, false, ctx); });
    declare(r, "strings.any_suffix_match", 2,
            [](Args a, BuiltinContext& ctx) { return any_affix_match(a, true, ctx); });
    declare(r, "trim", 2, string_map2([](std::string_view s, std::string_view c) {
                auto cut = support::utf8::runes(c);
                return std::string(trim_right_runes(trim_left_runes(s, cut), cut));
            }));
    declare(r, "trim_left", 2, string_map2([](std::string_view s, std::string_view c) {
                return std::string(trim_left_runes(s, support::utf8::runes(c)));
            }));
    declare(r, "trim_right", 2, string_map2([](std::string_view s, std::string_view c) {
                return std::string(trim_right_runes(s, support::utf8::runes(c)));
            }));
    declare(r, "trim_prefix", 2, string_map2([](std::string_view s, std::string_view p) {
                return std::string(s.starts_with(p) ? s.substr(p.size()) : s);
            }));
    declare(r, "trim_suffix", 2, string_map2([](std::string_view s, std::string_view p) {
                return std::string(s.ends_with(p) ? s.substr(0, s.size() - p.size()) : s);
            }));
    declare(r, "trim_space", 1, string_map([](std::string_view s) { return std::string(support::trim_space(s)); }));
    declare(r, "strings.render_template", 2, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_object()) return type_error(2, "object", a[1]);
        if (!json_shaped(a[1])) {
            // OPA reads the variables by decoding their Rego text as JSON (ast.As): a set or a
            // key that is no string fails there, with Go's decoder's words.
            std::string text;
            if (!append_formatted(text, a[1], ctx)) return BuiltinResult::cancelled();
            auto decoded = runtime::go_decode(text);
            if (!decoded.ok) return BuiltinResult::error(decoded.error);
        }
        auto res = render_template(a[0].as_string(), a[1], &ctx);
        if (res.stopped) return BuiltinResult::cancelled();
        if (!res.ok) return BuiltinResult::error(res.error);
        return text_result(ctx, res.output);
    });
}

}  // namespace gavel::stdlib
