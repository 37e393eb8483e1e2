#pragma once
// A JSON string literal as Go's encoding/json writes it, for every layer (lang's AST JSON,
// the Value writer, the CLI's reports, bundle signatures): one escaper. Which characters
// are escaped differs by place in OPA, so the caller says it: Go's json.Marshal and
// json.Encoder (OPA's server and CLI output) escape <, > and & as \u003c, \u003e, \u0026
// (`escape_html`); OPA's Term.String() and json.Encoder with SetEscapeHTML(false) do not.
// Both replace invalid UTF-8 by U+FFFD and escape U+2028/U+2029.

#include <cstddef>
#include <string>
#include <string_view>

#include "support/utf8.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gavel::support {

struct JsonStringOptions {
    bool escape_html = false;
};

namespace json_string_detail {

inline constexpr char kHex[] = "0123456789abcdef";

inline bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80; }

// First byte in [p, e) that needs_escape(), or e.
inline const char* find_escape(const char* p, const char* e) noexcept {
#if defined(__SSE2__)
    const __m128i space = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    while (e - p >= 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // Signed: bytes >= 0x80 are negative, so "< 0x20" catches them too.
        __m128i hit =
            _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)));
        if (int m = _mm_movemask_epi8(hit)) return p + __builtin_ctz(static_cast<unsigned>(m));
        p += 16;
    }
#endif
    while (p < e && !needs_escape(static_cast<unsigned char>(*p))) ++p;
    return p;
}

// The first of '<', '>', '&' in [p, q), or q.
inline const char* html_segment(const char* p, const char* q) noexcept {
    while (p < q && *p != '<' && *p != '>' && *p != '&') ++p;
    return p;
}

}  // namespace json_string_detail

// Writes `s` as a JSON string literal, quotes included, to `out`: any sink with
// reserve(n) (room for n more bytes), put(char) and put(const char*, n) (the Value
// writer's raw cursor, or a std::string through append_json_string).
template <class Sink>
void write_json_string(Sink& out, std::string_view s, JsonStringOptions options = {}) {
    using namespace json_string_detail;
    const char* p = s.data();
    const char* e = p + s.size();
    out.reserve(s.size() + 2);
    out.put('"');
    for (;;) {
        const char* q = find_escape(p, e);
        if (options.escape_html) q = html_segment(p, q);
        out.reserve(static_cast<std::size_t>(q - p) + 8);
        out.put(p, static_cast<std::size_t>(q - p));
        if (q == e) break;
        auto c = static_cast<unsigned char>(*q);
        if (c >= 0x80) {
            std::size_t len = utf8::sequence_length(s, static_cast<std::size_t>(q - s.data()));
            if (len == 0) {
                out.put("\\ufffd", 6);
                p = q + 1;
            } else if (len == 3 && c == 0xE2 && static_cast<unsigned char>(q[1]) == 0x80 &&
                       (static_cast<unsigned char>(q[2]) & 0xFE) == 0xA8) {
                out.put(static_cast<unsigned char>(q[2]) == 0xA8 ? "\\u2028" : "\\u2029", 6);
                p = q + 3;
            } else {
                out.put(q, len);
                p = q + len;
            }
            continue;
        }
        switch (c) {
            case '<': out.put("\\u003c", 6); break;
            case '>': out.put("\\u003e", 6); break;
            case '&': out.put("\\u0026", 6); break;
            case '"': out.put("\\\"", 2); break;
            case '\\': out.put("\\\\", 2); break;
            case '\n': out.put("\\n", 2); break;
            case '\r': out.put("\\r", 2); break;
            case '\t': out.put("\\t", 2); break;
            case '\b': out.put("\\b", 2); break;
            case '\f': out.put("\\f", 2); break;
            default:
                out.put("\\u00", 4);
                out.put(kHex[c >> 4]);
                out.put(kHex[c & 0xF]);
        }
        p = q + 1;
    }
    out.reserve(1);
    out.put('"');
}

// Appends `s` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view s, JsonStringOptions options = {});

// Go's json.Encoder HTML escaping applied to JSON text already written (pieces from
// several writers): <, > and & become \u003c, \u003e, \u0026. They stand only inside
// strings in JSON text, so this is what escape_html would have written.
std::string escape_html_in_json(std::string_view json_text);

}  // namespace gavel::support
