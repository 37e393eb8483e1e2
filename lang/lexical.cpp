#include "lang/lexical.hpp"

#include "support/hex_digit.hpp"
#include "support/utf8.hpp"

#include <cmath>
#include <cstdint>

namespace gavel::lang::lexical {

bool is_active_keyword(const ParseState& st, std::string_view w) {
    static constexpr std::string_view always[] = {"not",    "some",    "with", "as",    "default", "else",
                                                  "import", "package", "true", "false", "null"};
    for (auto k : always)
        if (w == k) return true;
    if (w == "in") return st.keywords.in;
    if (w == "every") return st.keywords.every;
    if (w == "if") return st.keywords.if_;
    if (w == "contains") return st.keywords.contains;
    if (w == "and" || w == "or") return st.keywords.logic;
    return false;
}

bool number_too_big(std::string_view s) {
    // Significant digits and the decimal exponent of the first one: value = 0.D1D2... * 10^dexp.
    std::int64_t dexp = 0;
    bool seen = false, in_fraction = false;
    double lead = 0, scale = 1;  // 0.D1D2...D17 as a double
    int taken = 0;
    std::size_t i = 0;
    for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; ++i) {
        char c = s[i];
        if (c == '.') {
            in_fraction = true;
            continue;
        }
        if (!seen && c == '0') {
            if (in_fraction) --dexp;
            continue;
        }
        seen = true;
        if (!in_fraction) ++dexp;
        if (taken < 17) {
            scale /= 10;
            lead += (c - '0') * scale;
            ++taken;
        }
    }
    if (!seen) return false;  // zero
    std::int64_t e = 0;
    bool eneg = false;
    if (i < s.size()) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        for (; i < s.size(); ++i) {
            e = e * 10 + (s[i] - '0');
            if (e > 1'000'000'000) return true;
        }
    }
    dexp += eneg ? -e : e;
    // log2(value) = log2(lead) + dexp * log2(10); the binary exponent is its floor plus one.
    double bexp = std::floor(std::log2(lead) + static_cast<double>(dexp) * 3.321928094887362) + 1;
    return bexp > 100000 || bexp < -100000;
}

namespace {

bool read_hex4(const char*& p, const char* end, unsigned& out) {
    if (end - p < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
        int h = support::hex_digit_value(p[i]);
        if (h < 0) return false;
        out = out * 16 + static_cast<unsigned>(h);
    }
    p += 4;
    return true;
}

}  // namespace

bool decode_escape(const char*& p, const char* end, std::string& out) {
    if (p == end) return false;
    char c = *p++;
    switch (c) {
        case '"': out.push_back('"'); return true;
        case '\\': out.push_back('\\'); return true;
        case '/': out.push_back('/'); return true;
        case 'b': out.push_back('\b'); return true;
        case 'f': out.push_back('\f'); return true;
        case 'n': out.push_back('\n'); return true;
        case 'r': out.push_back('\r'); return true;
        case 't': out.push_back('\t'); return true;
        case 'u': {
            unsigned cp;
            if (!read_hex4(p, end, cp)) return false;
            if (cp >= 0xD800 && cp < 0xDC00) {
                // A high surrogate pairs with a following \uDC00-\uDFFF; alone it becomes U+FFFD, as in Go.
                const char* save = p;
                unsigned low;
                if (end - p >= 6 && p[0] == '\\' && p[1] == 'u' && (p += 2, read_hex4(p, end, low)) && low >= 0xDC00 &&
                    low < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                } else {
                    p = save;
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp < 0xE000) {
                cp = 0xFFFD;
            }
            support::utf8::append_code_point(out, cp);
            return true;
        }
        default: return false;
    }
}

}  // namespace gavel::lang::lexical
