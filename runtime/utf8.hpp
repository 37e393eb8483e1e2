// UTF-8 helpers shared by the JSON/YAML readers and the JSON writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gavel::runtime::utf8 {

// Length of the valid UTF-8 sequence starting at s[i] (1-4), or 0 when the
// bytes there are not valid UTF-8 (overlongs, surrogates, > U+10FFFF rejected).
std::size_t sequence_length(std::string_view s, std::size_t i) noexcept;

// Offset of the first invalid byte, or npos when `s` is valid UTF-8.
std::size_t find_invalid(std::string_view s) noexcept;

inline bool is_valid(std::string_view s) noexcept { return find_invalid(s) == std::string_view::npos; }

void append_code_point(std::string& out, std::uint32_t cp);
// Writes `cp` (at most 4 bytes) at `out`; returns the end.
char* encode_code_point(std::uint32_t cp, char* out) noexcept;

} // namespace gavel::runtime::utf8
