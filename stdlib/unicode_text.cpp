#include "stdlib/unicode_text.hpp"

#include <locale.h>
#include <string.h>
#include <wctype.h>

#include "support/utf8.hpp"

namespace gavel::stdlib::text {

namespace {

// The C.UTF-8 locale for wide-character classification; null if missing.
locale_t utf8_locale() {
    static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    return loc;
}

}  // namespace

char32_t to_upper(char32_t r) noexcept {
    if (r < 0x80) return (r >= 'a' && r <= 'z') ? r - 32 : r;
    locale_t loc = utf8_locale();
    return loc ? static_cast<char32_t>(towupper_l(static_cast<wint_t>(r), loc)) : r;
}

char32_t to_lower(char32_t r) noexcept {
    if (r < 0x80) return (r >= 'A' && r <= 'Z') ? r + 32 : r;
    locale_t loc = utf8_locale();
    return loc ? static_cast<char32_t>(towlower_l(static_cast<wint_t>(r), loc)) : r;
}

namespace {

std::string map_runes(std::string_view s, char32_t (*fn)(char32_t) noexcept) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        auto d = support::utf8::decode_rune(s, i);
        support::utf8::append_rune(out, fn(d.rune));
        i += d.width;
    }
    return out;
}

}  // namespace

std::string upper(std::string_view s) { return map_runes(s, &to_upper); }
std::string lower(std::string_view s) { return map_runes(s, &to_lower); }

bool is_print(char32_t r) noexcept {
    if (r < 0x80) return r >= 0x20 && r < 0x7F;
    if (r == 0xFFFD) return true;
    if (r == 0xA0 || r == 0xAD) return false;  // Go: non-breaking space / soft hyphen are not printable
    // Go prints letters, marks, numbers, punctuation and symbols only: the spaces glibc does not
    // call spaces (U+2007, U+202F) and the format characters (category Cf) glibc prints are not.
    if (r == 0x2007 || r == 0x202F || (r >= 0x0600 && r <= 0x0605) || r == 0x061C || r == 0x06DD || r == 0x070F ||
        r == 0x08E2 || r == 0x180E || (r >= 0x200B && r <= 0x200F) || (r >= 0x202A && r <= 0x202E) ||
        (r >= 0x2060 && r <= 0x2064) || (r >= 0x2066 && r <= 0x206F) || r == 0xFEFF || (r >= 0xFFF9 && r <= 0xFFFB) ||
        r == 0x110BD || r == 0x110CD || (r >= 0x13430 && r <= 0x1343F) || (r >= 0x1BCA0 && r <= 0x1BCA3) ||
        (r >= 0x1D173 && r <= 0x1D17A) || r == 0xE0001 || (r >= 0xE0020 && r <= 0xE007F))
        return false;
    // Private use (category Co) is not printable to Go; glibc's tables print it.
    if ((r >= 0xE000 && r <= 0xF8FF) || r >= 0xF0000) return false;
    locale_t loc = utf8_locale();
    if (!loc) return false;
    return iswprint_l(static_cast<wint_t>(r), loc) != 0 && !iswspace_l(static_cast<wint_t>(r), loc);
}

bool is_letter(char32_t r) noexcept {
    if (r < 0x80) return (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z');
    locale_t loc = utf8_locale();
    return loc && iswalpha_l(static_cast<wint_t>(r), loc) != 0;
}

std::size_t find(std::string_view hay, std::string_view needle, std::size_t from) noexcept {
    if (from > hay.size()) return std::string_view::npos;
    if (needle.empty()) return from;
    // An empty haystack may have no storage at all (data() == nullptr), which memmem must not see.
    if (needle.size() > hay.size() - from) return std::string_view::npos;
    // glibc's memmem is the two-way algorithm: linear in the worst case.
    const void* hit = ::memmem(hay.data() + from, hay.size() - from, needle.data(), needle.size());
    return hit ? static_cast<std::size_t>(static_cast<const char*>(hit) - hay.data()) : std::string_view::npos;
}

bool is_ascii(std::string_view s) noexcept {
    for (unsigned char c : s)
        if (c >= 0x80) return false;
    return true;
}

}  // namespace gavel::stdlib::text
