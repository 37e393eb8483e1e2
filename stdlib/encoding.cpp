// base64*, hex.*, urlquery.*, uri.*: the encodings of Go's standard library
// (encoding/base64, encoding/hex, net/url) as OPA exposes them, with Go's
// error messages.

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/go_url.hpp"

namespace gavel::stdlib {

namespace {

constexpr std::string_view kStdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64_encode(std::string_view in, std::string_view alphabet, bool pad) {
    std::string out;
    out.reserve((in.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= in.size(); i += 3) {
        uint32_t v = (uint32_t(uint8_t(in[i])) << 16) | (uint32_t(uint8_t(in[i + 1])) << 8) | uint8_t(in[i + 2]);
        for (int shift = 18; shift >= 0; shift -= 6) out += alphabet[(v >> shift) & 63];
    }
    std::size_t rest = in.size() - i;
    if (rest > 0) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16;
        if (rest == 2) v |= uint32_t(uint8_t(in[i + 1])) << 8;
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        if (rest == 2) out += alphabet[(v >> 6) & 63];
        if (pad) out.append(rest == 1 ? "==" : "=");
    }
    return out;
}

// Go's padded base64 decoder (strict about padding, ignores '\r' and '\n').
// On failure `error` is Go's "illegal base64 data at input byte N".
std::optional<std::string> base64_decode(std::string_view in, std::string_view alphabet, std::string& error) {
    int8_t table[256];
    std::fill(std::begin(table), std::end(table), int8_t(-1));
    for (std::size_t k = 0; k < alphabet.size(); ++k) table[uint8_t(alphabet[k])] = int8_t(k);

    std::string out;
    std::size_t i = 0;
    auto fail = [&](std::size_t at) {
        error = fmt::format("illegal base64 data at input byte {}", at);
        return std::nullopt;
    };
    auto next = [&](std::size_t& pos) -> int {  // next non-newline index, -1 at end
        while (pos < in.size() && (in[pos] == '\n' || in[pos] == '\r')) ++pos;
        return pos < in.size() ? int(1) : -1;
    };
    while (true) {
        uint32_t quantum[4];
        std::size_t got = 0;
        std::size_t pad_at = 0;
        bool padded = false;
        for (; got < 4; ++got) {
            if (next(i) < 0) break;
            char c = in[i];
            if (c == '=') {
                padded = true;
                pad_at = i;
                break;
            }
            if (table[uint8_t(c)] < 0) return fail(i);
            quantum[got] = uint32_t(table[uint8_t(c)]);
            ++i;
        }
        if (padded) {
            // "=" may only appear as the 3rd/4th symbol: "xx==" or "xxx=".
            if (got < 2) return fail(pad_at);
            ++i;  // consume '='
            if (got == 2) {
                if (next(i) < 0) return fail(in.size());
                if (in[i] != '=') return fail(i - 1);
                ++i;
            }
            if (next(i) >= 0) return fail(i);  // trailing garbage after padding
        } else if (got == 0) {
            break;
        } else if (got < 4) {
            return fail(i - got);  // the padded encoding needs whole quanta
        }
        uint32_t v = 0;
        for (std::size_t k = 0; k < 4; ++k) v = (v << 6) | (k < got ? quantum[k] : 0);
        out += char((v >> 16) & 0xFF);
        if (got >= 3) out += char((v >> 8) & 0xFF);
        if (got == 4) out += char(v & 0xFF);
        if (padded) break;
    }
    return out;
}

// Go's %#U for a byte taken as a rune: U+0067 'g' (the character only when printable).
std::string go_rune_description(unsigned char c) {
    std::string s = fmt::format("U+{:04X}", c);
    bool printable = (c >= 0x20 && c < 0x7f) || (c >= 0xA1 && c != 0xAD);
    if (printable) {
        std::string ch;
        if (c < 0x80) ch = std::string(1, char(c));
        else {
            ch += char(0xC0 | (c >> 6));
            ch += char(0x80 | (c & 0x3F));
        }
        s += " '" + ch + "'";
    }
    return s;
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

BuiltinResult hex_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size() / 2);
    std::size_t j = 1;
    for (; j < s.size(); j += 2) {
        int a = hex_value(s[j - 1]), b = hex_value(s[j]);
        if (a < 0) return BuiltinResult::error("encoding/hex: invalid byte: " + go_rune_description(uint8_t(s[j - 1])));
        if (b < 0) return BuiltinResult::error("encoding/hex: invalid byte: " + go_rune_description(uint8_t(s[j])));
        out += char(a * 16 + b);
    }
    if (s.size() % 2 == 1) {
        if (hex_value(s[j - 1]) < 0)
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
        return BuiltinResult::error("operand 1 values must be string, array[string], or set[string]");
    };
    // url.Values.Encode: keys sorted bytewise, values in their given order.
    std::vector<std::pair<std::string, std::vector<std::string>>> pairs;
    for (const auto& e : obj.object_entries()) {
        if (!e.key.is_string()) return BuiltinResult::error("operand 1 keys must be strings");
        std::vector<std::string> values;
        if (e.value.is_string()) {
            values.emplace_back(e.value.as_string());
        } else if (e.value.is_array() || e.value.is_set()) {
            auto xs = e.value.is_array() ? e.value.array_elements() : e.value.set_elements();
            for (const auto& x : xs) {
                if (!x.is_string()) return bad_value();
                values.emplace_back(x.as_string());
            }
        } else {
            return bad_value();
        }
        pairs.emplace_back(std::string(e.key.as_string()), std::move(values));
    }
    std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
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
        auto value = go_url::query_unescape(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1), error);
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
    declare(r, "base64.encode", 1, on_string(2, [](std::string_view s) {
        return BuiltinResult::of(Value::string(base64_encode(s, kStdAlphabet, true)));
    }));
    declare(r, "base64.decode", 1, on_string(1, [](std::string_view s) {
        std::string error;
        auto out = base64_decode(s, kStdAlphabet, error);
        if (!out) return BuiltinResult::error(error);
        return BuiltinResult::of(Value::string(*out));
    }));
    declare(r, "base64.is_valid", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return BuiltinResult::of(Value::boolean(false));
        std::string error;
        return BuiltinResult::of(Value::boolean(base64_decode(a[0].as_string(), kStdAlphabet, error).has_value()));
    });
    declare(r, "base64url.encode", 1, on_string(2, [](std::string_view s) {
        return BuiltinResult::of(Value::string(base64_encode(s, kUrlAlphabet, true)));
    }));
    declare(r, "base64url.encode_no_pad", 1, on_string(2, [](std::string_view s) {
        return BuiltinResult::of(Value::string(base64_encode(s, kUrlAlphabet, false)));
    }));
    declare(r, "base64url.decode", 1, on_string(2, [](std::string_view s) {
        // Unpadded input is padded first (RFC 7515 appendix C), as OPA does.
        std::string padded(s);
        if (padded.empty() || padded.back() != '=') {
            switch (padded.size() % 4) {
            case 0: break;
            case 2: padded += "=="; break;
            case 3: padded += "="; break;
            default: return BuiltinResult::error("illegal base64url string: " + padded);
            }
        }
        std::string error;
        auto out = base64_decode(padded, kUrlAlphabet, error);
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
    declare(r, "urlquery.encode", 1, on_string(3, [](std::string_view s) {
        return BuiltinResult::of(Value::string(go_url::query_escape(s)));
    }));
    declare(r, "urlquery.decode", 1, on_string(1, [](std::string_view s) {
        std::string error;
        auto out = go_url::query_unescape(s, error);
        if (!out) return BuiltinResult::error(error);
        return BuiltinResult::of(Value::string(*out));
    }));
    declare(r, "urlquery.encode_object", 1, [](Args a, BuiltinContext& ctx) { return urlquery_encode_object(a[0], ctx); });
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
