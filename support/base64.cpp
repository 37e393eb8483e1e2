// Go's encoding/base64 (see base64.hpp).
#include "support/base64.hpp"

#include <array>
#include <cstdint>

namespace gavel::support {

std::string Base64Result::error() const { return "illegal base64 data at input byte " + std::to_string(bad_offset); }

namespace {

constexpr std::string_view kStdAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::array<uint8_t, 256> decode_map(std::string_view alphabet) {
    std::array<uint8_t, 256> m{};
    m.fill(0xff);
    for (std::size_t i = 0; i < alphabet.size(); ++i)
        m[static_cast<unsigned char>(alphabet[i])] = static_cast<uint8_t>(i);
    return m;
}

bool is_newline(char c) { return c == '\n' || c == '\r'; }

}  // namespace

// Go's Encoding.Decode, quantum by quantum, so error offsets match.
Base64Result base64_decode(std::string_view src, bool url) {
    static const auto std_map = decode_map(kStdAlphabet);
    static const auto url_map = decode_map(kUrlAlphabet);
    const auto& map = url ? url_map : std_map;
    Base64Result r;
    r.bytes.reserve(src.size() / 4 * 3 + 3);
    std::size_t si = 0;
    auto fail = [&](std::size_t at) {
        r.ok = false;
        r.bad_offset = at;
        r.bytes.clear();
        return r;
    };
    while (si < src.size()) {
        uint8_t dbuf[4] = {0, 0, 0, 0};
        int dlen = 4;
        bool end = false;
        for (int j = 0; j < 4; ++j) {
            if (si == src.size()) {
                if (j == 0) return r.ok = true, r;
                return fail(si - static_cast<std::size_t>(j));  // padding required
            }
            char in = src[si++];
            uint8_t out = map[static_cast<unsigned char>(in)];
            if (out != 0xff) {
                dbuf[j] = out;
                continue;
            }
            if (is_newline(in)) {
                --j;
                continue;
            }
            if (in != '=') return fail(si - 1);
            // Padding: only after two or three symbols.
            if (j == 0 || j == 1) return fail(si - 1);
            if (j == 2) {
                while (si < src.size() && is_newline(src[si])) ++si;
                if (si == src.size()) return fail(src.size());
                if (src[si] != '=') return fail(si - 1);
                ++si;
            }
            while (si < src.size() && is_newline(src[si])) ++si;
            if (si < src.size()) return fail(si);  // trailing garbage
            dlen = j;
            end = true;
            break;
        }
        uint32_t val = (uint32_t{dbuf[0]} << 18) | (uint32_t{dbuf[1]} << 12) | (uint32_t{dbuf[2]} << 6) | dbuf[3];
        char bytes[3] = {static_cast<char>(val >> 16), static_cast<char>(val >> 8), static_cast<char>(val)};
        r.bytes.append(bytes, static_cast<std::size_t>(dlen - 1));
        if (end) break;
    }
    r.ok = true;
    return r;
}

std::string base64_encode(std::string_view bytes, bool url, bool pad) {
    std::string_view alphabet = url ? kUrlAlphabet : kStdAlphabet;
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        uint32_t v = (uint32_t{static_cast<unsigned char>(bytes[i])} << 16) |
                     (uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8) |
                     static_cast<unsigned char>(bytes[i + 2]);
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += alphabet[(v >> 6) & 63];
        out += alphabet[v & 63];
    }
    std::size_t left = bytes.size() - i;
    if (left > 0) {
        uint32_t v = uint32_t{static_cast<unsigned char>(bytes[i])} << 16;
        if (left == 2) v |= uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8;
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        if (left == 2) out += alphabet[(v >> 6) & 63];
        if (pad) out.append(left == 1 ? "==" : "=");
    }
    return out;
}

std::optional<std::string> base64url_decode_lenient(std::string_view s, std::string& error) {
    std::string padded(s);
    if (padded.empty() || padded.back() != '=') {
        switch (padded.size() % 4) {
            case 0: break;
            case 2: padded += "=="; break;
            case 3: padded += "="; break;
            default: error = "illegal base64url string: " + padded; return std::nullopt;
        }
    }
    auto r = base64_decode(padded, true);
    if (!r.ok) {
        error = r.error();
        return std::nullopt;
    }
    return std::move(r.bytes);
}

}  // namespace gavel::support
