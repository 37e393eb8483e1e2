// Pieces both JSON readers share (json.cpp reads eagerly, lazy_json.cpp
// builds containers on first access), so that both give the same values:
// string unescaping, number reading, and the canonical order of object keys.
// Internal to the runtime.
#pragma once

#include "runtime/unaligned_load.hpp"
#include "support/hex_digit.hpp"
#include "support/utf8.hpp"
#include "runtime/value.hpp"

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gavel::runtime::json_read {

inline bool is_ws(char c) noexcept { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The bytes of a 2- or 4-character string as the word an unaligned load of
// them gives: a short pattern is one compare instead of a call to memcmp.
constexpr std::uint16_t pattern2(const char (&p)[3]) noexcept {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[1]) << 8);
}
constexpr std::uint32_t pattern4(const char (&p)[5]) noexcept {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(p[0])) |
           static_cast<std::uint32_t>(static_cast<unsigned char>(p[1])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(p[2])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(p[3])) << 24;
}

// Stage 1 indexes where each scalar and string starts; both end before the
// next structural (`next`), trailing whitespace aside.

// A scalar's text: from p up to `next`, trailing whitespace removed.
inline std::string_view scalar_token(const char* p, const char* next) noexcept {
    while (next > p && is_ws(next[-1])) --next;
    return {p, static_cast<std::size_t>(next - p)};
}

// The closing quote of the string whose content starts at `start`: the last
// byte before `next` but whitespace. Null when that is not a quote.
inline const char* closing_quote_before(const char* start, const char* next) noexcept {
    if (next > start && next[-1] == '"') return next - 1;  // no whitespace between: the usual case
    while (next > start && is_ws(next[-1])) --next;
    return next > start && next[-1] == '"' ? next - 1 : nullptr;
}

// Four hex digits in [p, end).
inline bool hex4(const char* p, const char* end, std::uint32_t& out) noexcept {
    if (end - p < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
        int h = support::hex_digit_value(p[i]);
        if (h < 0) return false;
        out = out * 16 + static_cast<std::uint32_t>(h);
    }
    return true;
}

// First backslash in [p, e), or e. Reads up to 15 bytes past e: only for
// padded input.
inline const char* find_backslash(const char* p, const char* e) noexcept {
#if defined(__SSE2__)
    const __m128i bslash = _mm_set1_epi8('\\');
    for (;;) {
        unsigned m = static_cast<unsigned>(
            _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)), bslash)));
        std::ptrdiff_t left = e - p;
        if (left < 16) m &= (1u << left) - 1;
        if (m) return p + __builtin_ctz(m);
        if (left <= 16) return e;
        p += 16;
    }
#else
    while (e - p >= 8) {
        std::uint64_t w = load_unaligned<std::uint64_t>(p) ^ 0x5c5c5c5c5c5c5c5cULL;  // '\\' bytes become 0
        std::uint64_t z = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;
        if (z) return p + (__builtin_ctzll(z) >> 3);
        p += 8;
    }
    while (p < e && *p != '\\') ++p;
    return p;
#endif
}

struct UnescapeError {
    const char* at = nullptr;
    const char* what = nullptr;
};

// Unescapes the string content [start, e) (the closing quote is at e; `bs`
// is its first backslash) into `out`, which has room for e - start bytes (the
// result is never longer). Lone or mismatched surrogates become U+FFFD, as
// Go's encoding/json does. Returns the end of the output, or nullptr with
// `err` set.
inline char* unescape_into(const char* start, const char* bs, const char* e, char* out, UnescapeError& err) noexcept {
    std::memcpy(out, start, static_cast<std::size_t>(bs - start));
    out += bs - start;
    const char* p = bs;
    while (p < e) {
        char c = *p;
        if (static_cast<unsigned char>(c) < 0x20) {
            err = {p, "invalid control character in string"};
            return nullptr;
        }
        if (c != '\\') {
            *out++ = c;
            ++p;
            continue;
        }
        const char* esc = p;
        char x = p[1];
        p += 2;
        switch (x) {
            case '"': *out++ = '"'; break;
            case '\\': *out++ = '\\'; break;
            case '/': *out++ = '/'; break;
            case 'b': *out++ = '\b'; break;
            case 'f': *out++ = '\f'; break;
            case 'n': *out++ = '\n'; break;
            case 'r': *out++ = '\r'; break;
            case 't': *out++ = '\t'; break;
            case 'u': {
                std::uint32_t cp;
                if (!hex4(p, e, cp)) {
                    err = {esc, "invalid \\u escape in string"};
                    return nullptr;
                }
                p += 4;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    std::uint32_t lo;
                    if (p + 1 < e && p[0] == '\\' && p[1] == 'u' && hex4(p + 2, e, lo) && lo >= 0xDC00 &&
                        lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        p += 6;
                    } else {
                        cp = 0xFFFD;  // lone high surrogate (Go: U+FFFD)
                    }
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    cp = 0xFFFD;  // lone low surrogate
                }
                out = support::utf8::encode_code_point(cp, out);
                break;
            }
            default: err = {esc, "invalid escape sequence in string"}; return nullptr;
        }
    }
    return out;
}

// true, false or null as a Value; false for any other token.
inline bool read_literal(std::string_view tok, Value& out) noexcept {
    // Word compares rather than calls to memcmp: a review has dozens.
    if (tok.size() < 4 || tok.size() > 5) return false;
    std::uint32_t head = load_unaligned<std::uint32_t>(tok.data());
    if (tok.size() == 4 && head == pattern4("true")) out = Value::boolean(true);
    else if (tok.size() == 4 && head == pattern4("null")) out = Value();
    else if (tok.size() == 5 && head == pattern4("fals") && tok[4] == 'e') out = Value::boolean(false);
    else return false;
    return true;
}

// A number token as a Value; false when it is not a JSON number.
inline bool read_number(std::string_view tok, Value& out) {
    // Fast path: short plain integers.
    if (!tok.empty() && tok.size() <= 18) {
        std::size_t i = tok[0] == '-' ? 1 : 0;
        bool plain = i < tok.size() && (tok[i] != '0' || tok.size() == i + 1);
        std::int64_t v = 0;
        for (std::size_t k = i; plain && k < tok.size(); ++k) {
            char c = tok[k];
            if (c < '0' || c > '9') plain = false;
            else v = v * 10 + (c - '0');
        }
        if (plain && !(i == 1 && v == 0)) {
            out = Value::integer(i ? -v : v);
            return true;
        }
    }
    NumberResult r = Number::parse(tok);
    if (!r.ok) return false;
    out = Value::number(std::move(r.value));
    return true;
}

// A literal or number token (stage 1 starts every other scalar with a quote
// or a bracket) as a Value; false when it is neither.
inline bool read_scalar(std::string_view tok, Value& out) {
    char c = tok.empty() ? '\0' : tok[0];
    return c == 't' || c == 'f' || c == 'n' ? read_literal(tok, out) : read_number(tok, out);
}

// A string key's first 8 bytes as a big-endian number, zero padded: keys
// whose prefixes differ compare as their prefixes do. Reader-built keys only
// (8 readable bytes).
inline std::uint64_t key_prefix(const Value& k) noexcept {
    std::string_view x = k.as_string();
    if (x.empty()) return 0;
    auto w = load_unaligned<std::uint64_t>(x.data());
    if (x.size() < 8) w &= (std::uint64_t(1) << (8 * x.size())) - 1;
    return __builtin_bswap64(w);
}

// Bytewise order of two string keys whose 8-byte prefixes are equal (rare
// in one object: kept out of the sorting loops).
[[gnu::noinline]] inline int compare_key_tails(const Value& a, const Value& b) noexcept {
    if (a.identical(b)) return 0;
    std::string_view x = a.as_string(), y = b.as_string();
    std::size_t n = std::min(x.size(), y.size());
    int c = n > 8 ? std::memcmp(x.data() + 8, y.data() + 8, n - 8) : 0;
    if (c != 0) return c;
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
}

// Bytewise order of two string keys built by a reader (their data always has
// 8 readable bytes): by prefix, then by the bytes past it.
inline int compare_keys(const Value& a, const Value& b, std::uint64_t prefix_a, std::uint64_t prefix_b) noexcept {
    if (prefix_a != prefix_b) return prefix_a < prefix_b ? -1 : 1;  // zero padding sorts a prefix first
    return compare_key_tails(a, b);
}

struct EntryOrder {
    std::vector<std::uint32_t> keep;  // indices of the entries kept, in order
    struct Ranked {
        std::uint64_t prefix;
        std::uint32_t index;
    };
    std::vector<Ranked> ranked;
    // Orders already worked out, by the sequence of key prefixes: objects of
    // one kind repeat their keys in the same order (every container of a Pod,
    // every request of a review). Only sequences of distinct prefixes are
    // kept, so the prefixes alone decide the order and nothing is dropped.
    static constexpr std::size_t kShapeKeys = 16;
    static constexpr unsigned kShapeBits = 5;
    struct Shape {
        std::uint32_t size = 0;  // 0: empty
        std::uint8_t order[kShapeKeys];
        std::uint64_t prefixes[kShapeKeys];
    };
    std::vector<Shape> shapes = std::vector<Shape>(std::size_t(1) << kShapeBits);
};

// The canonical order of an object's m entries read in document order: by
// key, the last of equal keys wins (Go's encoding/json). Returns true when
// the entries are already strictly ascending (keep them as they are);
// otherwise `order.keep` holds the indices to keep, in order, and drop(j)
// was called for each entry left out. Keys are sorted as (prefix, index)
// pairs: the prefix decides all but equal prefixes, which compare whole.
template <class Drop>
bool order_entries(const ObjectEntry* items, std::size_t m, EntryOrder& order, Drop drop) {
    std::vector<EntryOrder::Ranked>& ranked = order.ranked;
    ranked.resize(m);
    bool sorted = true;
    std::uint64_t hash = m;
    for (std::size_t j = 0; j < m; ++j) {
        ranked[j] = {key_prefix(items[j].key), static_cast<std::uint32_t>(j)};
        hash = (hash ^ ranked[j].prefix) * 0x9E3779B97F4A7C15ULL;
        if (j && sorted && compare_keys(items[j - 1].key, items[j].key, ranked[j - 1].prefix, ranked[j].prefix) >= 0)
            sorted = false;
    }
    if (sorted) return true;
    std::vector<std::uint32_t>& keep = order.keep;
    EntryOrder::Shape* shape = nullptr;
    if (m <= EntryOrder::kShapeKeys) {
        shape = &order.shapes[hash >> (64 - EntryOrder::kShapeBits)];
        if (shape->size == m) {
            bool same = true;
            for (std::size_t j = 0; j < m; ++j) same &= shape->prefixes[j] == ranked[j].prefix;
            if (same) {
                keep.resize(m);
                for (std::size_t j = 0; j < m; ++j) keep[j] = shape->order[j];
                return false;
            }
        }
    }
    auto cmp = [&](const EntryOrder::Ranked& a, const EntryOrder::Ranked& b) {
        return compare_keys(items[a.index].key, items[b.index].key, a.prefix, b.prefix);
    };
    // Stable: equal keys keep input order.
    auto less = [&](const EntryOrder::Ranked& a, const EntryOrder::Ranked& b) {
        if (a.prefix != b.prefix) return a.prefix < b.prefix;
        int c = cmp(a, b);
        return c < 0 || (c == 0 && a.index < b.index);
    };
    if (m <= 24) {
        for (std::size_t j = 1; j < m; ++j) {
            EntryOrder::Ranked t = ranked[j];
            std::size_t k = j;
            while (k > 0 && less(t, ranked[k - 1])) {
                ranked[k] = ranked[k - 1];
                --k;
            }
            ranked[k] = t;
        }
    } else {
        std::sort(ranked.begin(), ranked.end(), less);
    }
    keep.clear();
    bool distinct_prefixes = true;
    for (std::size_t j = 0; j < m; ++j) {
        if (j + 1 < m && ranked[j].prefix == ranked[j + 1].prefix) distinct_prefixes = false;
        if (j + 1 == m || cmp(ranked[j], ranked[j + 1]) != 0) keep.push_back(ranked[j].index);
        else drop(ranked[j].index);
    }
    if (shape && distinct_prefixes) {
        shape->size = static_cast<std::uint32_t>(m);
        for (std::size_t j = 0; j < m; ++j) {
            shape->prefixes[ranked[j].index] = ranked[j].prefix;  // in document order
            shape->order[j] = static_cast<std::uint8_t>(keep[j]);
        }
    }
    return false;
}

}  // namespace gavel::runtime::json_read
