#include "lang/go_quote.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "support/utf8.hpp"

namespace gavel::lang {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// Go's unicode.IsPrint for the code points a policy is likely to hold: C1
// controls, spaces other than ' ' and invisible format characters are not printable.
bool is_go_printable(char32_t cp) {
    if (cp < 0xA0) return false;  // only called for non-ASCII
    if (cp == 0xA0 || cp == 0xAD || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202F) ||
        (cp >= 0x205F && cp <= 0x2064) || cp == 0x3000 || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
        (cp >= 0xE000 && cp <= 0xF8FF) || cp >= 0xF0000)
        return false;
    return true;
}

void append_hex_byte(std::string& out, unsigned char c) {
    out += "\\x";
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
}

}  // namespace

void append_go_quoted(std::string& out, std::string_view s) {
    out.push_back('"');
    for (std::size_t i = 0; i < s.size();) {
        auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '"': out += "\\\""; break;
                case '\\': out += "\\\\"; break;
                case '\a': out += "\\a"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                case '\n': out += "\\n"; break;
                case '\r': out += "\\r"; break;
                case '\t': out += "\\t"; break;
                case '\v': out += "\\v"; break;
                default:
                    if (c < 0x20 || c == 0x7F) append_hex_byte(out, c);
                    else out.push_back(static_cast<char>(c));
            }
            ++i;
            continue;
        }
        char32_t cp = 0;
        std::size_t n = support::utf8::decode(s, i, cp);
        if (n == 0) {
            append_hex_byte(out, c);
            ++i;
        } else if (!is_go_printable(cp)) {
            auto code = static_cast<uint32_t>(cp);
            out += code > 0xFFFF ? fmt::format("\\U{:08x}", code) : fmt::format("\\u{:04x}", code);
            i += n;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    out.push_back('"');
}

std::string go_quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    append_go_quoted(out, s);
    return out;
}

}  // namespace gavel::lang
