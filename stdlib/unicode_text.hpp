// Code-point level text helpers with Go's semantics, shared by the string,
// regex, glob and sprintf builtins: OPA works on Go runes, where an invalid
// UTF-8 byte decodes as U+FFFD of width 1 (support/utf8.hpp decodes them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gavel::stdlib::text {

// Unicode simple case mapping (Go's unicode.ToUpper / ToLower per rune).
// Uses glibc's C.UTF-8 locale tables (the full Unicode simple mappings, as
// Go's); only when that locale is missing does it fall back to ASCII.
char32_t to_upper(char32_t r) noexcept;
char32_t to_lower(char32_t r) noexcept;

// Go's strings.ToUpper / ToLower (invalid bytes become U+FFFD).
std::string upper(std::string_view s);
std::string lower(std::string_view s);

// Go's unicode.IsPrint approximated with the C.UTF-8 tables (ASCII exact).
bool is_print(char32_t r) noexcept;
// Go's unicode.IsLetter approximated with the C.UTF-8 tables (ASCII exact).
bool is_letter(char32_t r) noexcept;

bool is_ascii(std::string_view s) noexcept;

// The first occurrence of `needle` in `hay` at or after byte `from`
// (std::string_view::find's answer), in time linear in both, as Go's
// strings.Index: string_view::find compares the needle again at each place
// its first byte occurs, quadratic on "aaaa…" searched for "aaa…b".
std::size_t find(std::string_view hay, std::string_view needle, std::size_t from = 0) noexcept;

}  // namespace gavel::stdlib::text
