#include "runtime/utf8.hpp"

#include "runtime/parse_result.hpp"

#include <cstring>

namespace gavel::runtime {

namespace utf8 {

std::size_t sequence_length(std::string_view s, std::size_t i) noexcept {
    auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    std::size_t n = s.size() - i;
    unsigned char c = b(0);
    if (c < 0x80) return 1;
    if (c < 0xC2) return 0;  // continuation byte or overlong 2-byte lead
    auto cont = [&](std::size_t k) { return (b(k) & 0xC0) == 0x80; };
    if (c < 0xE0) return n >= 2 && cont(1) ? 2 : 0;
    if (c < 0xF0) {
        if (n < 3 || !cont(1) || !cont(2)) return 0;
        if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
        if (c == 0xED && b(1) >= 0xA0) return 0;  // UTF-16 surrogate
        return 3;
    }
    if (c < 0xF5) {
        if (n < 4 || !cont(1) || !cont(2) || !cont(3)) return 0;
        if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
        if (c == 0xF4 && b(1) >= 0x90) return 0;  // > U+10FFFF
        return 4;
    }
    return 0;
}

std::size_t find_invalid(std::string_view s) noexcept {
    std::size_t i = 0, n = s.size();
    while (i < n) {
        // Skip ASCII eight bytes at a time.
        while (i + 8 <= n) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, 8);
            if (w & 0x8080808080808080ULL) break;
            i += 8;
        }
        if (i >= n) break;
        std::size_t len = sequence_length(s, i);
        if (len == 0) return i;
        i += len;
    }
    return std::string_view::npos;
}

char* encode_code_point(std::uint32_t cp, char* out) noexcept {
    if (cp < 0x80) {
        *out++ = static_cast<char>(cp);
    } else if (cp < 0x800) {
        *out++ = static_cast<char>(0xC0 | (cp >> 6));
        *out++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *out++ = static_cast<char>(0xE0 | (cp >> 12));
        *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        *out++ = static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        *out++ = static_cast<char>(0xF0 | (cp >> 18));
        *out++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        *out++ = static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
}

void append_code_point(std::string& out, std::uint32_t cp) {
    char buf[4];
    out.append(buf, static_cast<std::size_t>(encode_code_point(cp, buf) - buf));
}

} // namespace utf8

void locate(std::string_view text, std::size_t offset, std::size_t& line, std::size_t& column) noexcept {
    if (offset > text.size()) offset = text.size();
    line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    column = offset - line_start + 1;
}

ParseError make_parse_error(std::string_view text, std::size_t offset, std::string_view what) {
    ParseError e;
    e.offset = offset;
    locate(text, offset, e.line, e.column);
    e.message = std::string(what) + " at line " + std::to_string(e.line) + ", column " + std::to_string(e.column) +
                " (byte offset " + std::to_string(offset) + ")";
    return e;
}

} // namespace gavel::runtime
