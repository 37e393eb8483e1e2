#include "support/go_space.hpp"

#include "support/utf8.hpp"

namespace gavel::support {

bool is_space(char32_t r) noexcept {
    switch (r) {
        case '\t':
        case '\n':
        case '\v':
        case '\f':
        case '\r':
        case ' ':
        case 0x85:
        case 0xA0:
        case 0x1680:
        case 0x2028:
        case 0x2029:
        case 0x202F:
        case 0x205F:
        case 0x3000: return true;
        default: return r >= 0x2000 && r <= 0x200A;
    }
}

std::string_view trim_space(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size()) {
        auto d = utf8::decode_rune(s, i);
        if (!is_space(d.rune)) break;
        i += d.width;
    }
    s = s.substr(i);
    std::size_t end = s.size();
    while (end > 0) {
        std::size_t start = utf8::last_rune_start(s, end);
        if (!is_space(utf8::decode_rune(s, start).rune)) break;
        end = start;
    }
    return s.substr(0, end);
}

}  // namespace gavel::support
