#include "lang/lexical.hpp"

#include "lang/utf8.hpp"

namespace gavel::lang::lexical {

bool is_active_keyword(const ParseState& st, std::string_view w) {
    static constexpr std::string_view always[] = {"not", "some", "with", "as", "default", "else",
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

namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool read_hex4(const char*& p, const char* end, unsigned& out) {
    if (end - p < 4) return false;
    out = 0;
    for (int i = 0; i < 4; ++i) {
        int h = hex_value(p[i]);
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
            append_utf8(out, cp);
            return true;
        }
        default: return false;
    }
}

}  // namespace gavel::lang::lexical
