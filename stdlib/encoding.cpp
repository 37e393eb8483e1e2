// base64*, hex.*, urlquery.*, uri.*: the encodings of Go's standard library
// (encoding/base64, encoding/hex, net/url) as OPA exposes them, with Go's
// error messages.

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/base64.hpp"
#include "support/hex_digit.hpp"
#include "support/utf8.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/go_url.hpp"

namespace gavel::stdlib {

namespace {

// Go's %#U for a byte taken as a rune: U+0067 'g' (the character only when printable).
std::string go_rune_description(unsigned char c) {
    std::string s = fmt::format("U+{:04X}", c);
    bool printable = (c >= 0x20 && c < 0x7f) || (c >= 0xA1 && c != 0xAD);
    if (printable) {
        std::string ch;
        support::utf8::append_code_point(ch, c);
        s += " '" + ch + "'";
    }
    return s;
}

BuiltinResult hex_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size() / 2);
    std::size_t j = 1;
    for (; j < s.size(); j += 2) {
        int a = support::hex_digit_value(s[j - 1]), b = support::hex_digit_value(s[j]);
        if (a < 0) return BuiltinResult::error("encoding/hex: invalid byte: " + go_rune_description(uint8_t(s[j - 1])));
        if (b < 0) return BuiltinResult::error("encoding/hex: invalid byte: " + go_rune_description(uint8_t(s[j])));
        out += char(a * 16 + b);
    }
    if (s.size() % 2 == 1) {
        if (support::hex_digit_value(s[j - 1]) < 0)
            return BuiltinResult::error("encoding/hex: invalid byte: " + go_rune_description(uint8_t(s[j - 1])));
        return BuiltinResult::error("encoding/hex: odd length hex string");
    }
    return BuiltinResult::of(Value::string(out));
}

// A builtin whose one operand must be a string, and whose result is at most
// `growth` times as long: the text it builds, and the value it is copied
// into, must fit in the evaluation's memory limit, asked before it starts.
template <typename F>
BuiltinImpl on_string(std::size_t growth, F f) {
    return [growth, f](Args a, BuiltinContext& ctx) -> BuiltinResult {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!ctx.affords(2 * growth * a[0].size())) return BuiltinResult::cancelled();
        return f(a[0].as_string());
    };
}

// Each value repeats its key: the text can be far longer than the object.
BuiltinResult urlquery_encode_object(const Value& obj, BuiltinContext& ctx) {
    if (!obj.is_object()) return type_error(1, "object", obj);
    const auto bad_value = [] {
        return BuiltinResult::type_error("operand 1 values must be string, array[string], or set[string]");
    };
    // OPA encodes the object as Go's JSON types (ast.JSON): keys become their JSON text, and
    // of keys of one text (1 and "1") the last in canonical order stays. url.Values.Encode:
    // keys sorted bytewise, values in their given order.
    auto entries = runtime::json_key_text_entries(obj, std::less<>());
    std::vector<std::pair<std::string, std::vector<std::string>>> pairs;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Value& value = *entries[i].second;
        std::vector<std::string> values;
        if (value.is_string()) {
            values.emplace_back(value.as_string());
        } else if (value.is_array() || value.is_set()) {
            auto xs = value.is_array() ? value.array_elements() : value.set_elements();
            for (const auto& x : xs) {
                if (!x.is_string()) return bad_value();
                values.emplace_back(x.as_string());
            }
        } else {
            return bad_value();
        }
        pairs.emplace_back(std::move(entries[i].first), std::move(values));
    }
    std::string out;
    for (const auto& [key, values] : pairs) {
        std::string k = go_url::query_escape(key);
        for (const auto& v : values) {
            if (!ctx.room(out, k.size() + 3 * v.size() + 2)) return BuiltinResult::cancelled();
            if (!out.empty()) out += '&';
            out += k;
            out += '=';
            out += go_url::query_escape(v);
        }
    }
    return text_result(ctx, out);
}

// url.ParseQuery: every pair is decoded; the first error is reported.
BuiltinResult urlquery_decode_object(std::string_view query) {
    std::map<std::string, std::vector<std::string>> params;
    std::string first_error;
    while (!query.empty()) {
        auto amp = query.find('&');
        auto pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
        if (pair.find(';') != std::string_view::npos) {
            if (first_error.empty()) first_error = "invalid semicolon separator in query";
            continue;
        }
        if (pair.empty()) continue;
        auto eq = pair.find('=');
        std::string error;
        auto key = go_url::query_unescape(pair.substr(0, eq), error);
        if (!key) {
            if (first_error.empty()) first_error = error;
            continue;
        }
        auto value =
            go_url::query_unescape(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1), error);
        if (!value) {
            if (first_error.empty()) first_error = error;
            continue;
        }
        params[*key].push_back(std::move(*value));
    }
    if (!first_error.empty()) return BuiltinResult::error(first_error);
    runtime::ObjectBuilder b(params.size());
    for (auto& [k, vs] : params) {
        runtime::ArrayBuilder arr(vs.size());
        for (auto& v : vs) arr.push_back(Value::string(v));
        b.insert(Value::string(k), arr.build());
    }
    return BuiltinResult::of(b.build());
}

Value url_to_object(const go_url::Url& u) {
    runtime::ObjectBuilder b;
    auto put = [&](std::string_view key, const std::string& value) {
        if (!value.empty()) b.insert(Value::string(key), Value::string(value));
    };
    put("scheme", u.scheme);
    put("hostname", u.hostname());
    put("port", u.port());
    put("path", u.path);
    put("raw_path", u.raw_path.empty() ? u.path : u.raw_path);
    put("raw_query", u.raw_query);
    put("fragment", u.fragment);
    return b.build();
}

}  // namespace

void register_encoding(Registry& r) {
    // Go's encoding/base64: the one codec (support/base64.hpp).
    declare(r, "base64.encode", 1, on_string(2, [](std::string_view s) {
                return BuiltinResult::of(Value::string(support::base64_encode(s)));
            }));
    declare(r, "base64.decode", 1, on_string(1, [](std::string_view s) {
                auto out = support::base64_decode(s);
                if (!out.ok) return BuiltinResult::error(out.error());
                return BuiltinResult::of(Value::string(out.bytes));
            }));
    declare(r, "base64.is_valid", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return BuiltinResult::of(Value::boolean(false));
        return BuiltinResult::of(Value::boolean(support::base64_decode(a[0].as_string()).ok));
    });
    declare(r, "base64url.encode", 1, on_string(2, [](std::string_view s) {
                return BuiltinResult::of(Value::string(support::base64_encode(s, true)));
            }));
    declare(r, "base64url.encode_no_pad", 1, on_string(2, [](std::string_view s) {
                return BuiltinResult::of(Value::string(support::base64_encode(s, true, false)));
            }));
    declare(r, "base64url.decode", 1, on_string(2, [](std::string_view s) {
                // Unpadded input is padded first (RFC 7515 appendix C), as OPA does.
                std::string error;
                auto out = support::base64url_decode_lenient(s, error);
                if (!out) return BuiltinResult::error(error);
                return BuiltinResult::of(Value::string(*out));
            }));
    declare(r, "hex.encode", 1, on_string(2, [](std::string_view s) {
                static constexpr char kHex[] = "0123456789abcdef";
                std::string out;
                out.reserve(s.size() * 2);
                for (unsigned char c : s) {
                    out += kHex[c >> 4];
                    out += kHex[c & 15];
                }
                return BuiltinResult::of(Value::string(out));
            }));
    declare(r, "hex.decode", 1, on_string(1, [](std::string_view s) { return hex_decode(s); }));
    declare(r, "urlquery.encode", 1,
            on_string(3, [](std::string_view s) { return BuiltinResult::of(Value::string(go_url::query_escape(s))); }));
    declare(r, "urlquery.decode", 1, on_string(1, [](std::string_view s) {
                std::string error;
                auto out = go_url::query_unescape(s, error);
                if (!out) return BuiltinResult::error(error);
                return BuiltinResult::of(Value::string(*out));
            }));
    declare(r, "urlquery.encode_object", 1,
            [](Args a, BuiltinContext& ctx) { return urlquery_encode_object(a[0], ctx); });
    declare(r, "urlquery.decode_object", 1, on_string(4, [](std::string_view s) { return urlquery_decode_object(s); }));
    declare(r, "uri.parse", 1, on_string(2, [](std::string_view s) {
                std::string error;
                auto u = go_url::parse(s, error);
                if (!u) return BuiltinResult::error(error);
                return BuiltinResult::of(url_to_object(*u));
            }));
    declare(r, "uri.is_valid", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string() || a[0].as_string().empty()) return BuiltinResult::of(Value::boolean(false));
        std::string error;
        return BuiltinResult::of(Value::boolean(go_url::parse(a[0].as_string(), error).has_value()));
    });
}

}  // namespace gavel::stdlib
