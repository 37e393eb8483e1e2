#include "support/utf8.hpp"

#include <cstring>

namespace gavel::support::utf8 {

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

std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) noexcept {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    std::size_t n = sequence_length(s, i);
    if (n == 0) return 0;
    char32_t r = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) r = (r << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    cp = r;
    return n;
}

Rune decode_rune(std::string_view s, std::size_t i) noexcept {
    char32_t cp = 0;
    std::size_t n = decode(s, i, cp);
    if (n == 0) return {kReplacement, 1};
    return {cp, n};
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

std::size_t rune_count(std::string_view s) noexcept {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++n) i += decode_rune(s, i).width;
    return n;
}

std::vector<char32_t> runes(std::string_view s) {
    std::vector<char32_t> out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        auto d = decode_rune(s, i);
        out.push_back(d.rune);
        i += d.width;
    }
    return out;
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

void append_rune(std::string& out, char32_t r) {
    if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = kReplacement;
    append_code_point(out, static_cast<std::uint32_t>(r));
}

std::string encode(const std::vector<char32_t>& rs, std::size_t from, std::size_t to) {
    std::string out;
    if (to > rs.size()) to = rs.size();
    for (std::size_t i = from; i < to; ++i) append_rune(out, rs[i]);
    return out;
}

std::size_t last_rune_start(std::string_view s, std::size_t end) noexcept {
    std::size_t start = end - 1;
    std::size_t lim = end >= 4 ? end - 4 : 0;
    while (start > lim && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    auto d = decode_rune(s, start);
    if (start + d.width != end) return end - 1;  // invalid tail: one byte
    return start;
}

}  // namespace gavel::support::utf8
