#pragma once
// UTF-8 as Go's unicode/utf8 has it, for every layer (source text and quoting in lang,
// the JSON/YAML readers and writers, the string builtins): one codec.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::support::utf8 {

// Go's utf8.RuneError: what an invalid byte decodes to.
inline constexpr char32_t kReplacement = 0xFFFD;

// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when the
// bytes there are not one (overlong forms, surrogates, code points past
// U+10FFFF, truncated sequences), as Go's utf8.DecodeRune rejects them.
std::size_t sequence_length(std::string_view s, std::size_t i) noexcept;

// The sequence at s[i] decoded: its length with its code point in `cp`, or 0
// (cp untouched) when it is not valid.
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) noexcept;

struct Rune {
    char32_t rune;
    std::size_t width;  // bytes consumed (1 for an invalid byte)
};
// Go's utf8.DecodeRuneInString(s[i:]) (i < s.size()): an invalid byte is U+FFFD of width 1.
Rune decode_rune(std::string_view s, std::size_t i) noexcept;

// Start of the rune that ends at `end` (0 < end <= s.size()), as Go's utf8.DecodeLastRune
// finds it: an invalid tail is one byte.
std::size_t last_rune_start(std::string_view s, std::size_t end) noexcept;

// Offset of the first invalid byte, or npos when `s` is valid UTF-8.
std::size_t find_invalid(std::string_view s) noexcept;
inline bool is_valid(std::string_view s) noexcept { return find_invalid(s) == std::string_view::npos; }

// Go's utf8.RuneCountInString (an invalid byte counts as one rune).
std::size_t rune_count(std::string_view s) noexcept;
// Go's []rune(s).
std::vector<char32_t> runes(std::string_view s);

// Writes `cp` (at most U+10FFFF; at most 4 bytes) at `out`; returns the end.
char* encode_code_point(std::uint32_t cp, char* out) noexcept;
// Appends `cp` (at most U+10FFFF) as UTF-8, surrogates included (for readers that checked it).
void append_code_point(std::string& out, std::uint32_t cp);
// Go's utf8.AppendRune: surrogates and values past U+10FFFF become U+FFFD.
void append_rune(std::string& out, char32_t r);
// Go's string(rs[from:to]).
std::string encode(const std::vector<char32_t>& rs, std::size_t from = 0, std::size_t to = std::string::npos);

}  // namespace gavel::support::utf8
