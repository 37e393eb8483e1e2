#pragma once
// UTF-8 for the language layer (source text, quoting, AST JSON): decoding one
// sequence as Go's utf8.DecodeRune accepts it, and encoding a code point.

#include <cstddef>
#include <string>
#include <string_view>

namespace gavel::lang {

// The length (1-4) of the UTF-8 sequence at s[i], with its code point in `cp`;
// 0 when the bytes there are not one (overlong forms, surrogates, code points
// past U+10FFFF, truncated sequences), as Go's utf8.DecodeRune rejects them.
std::size_t decode_utf8(std::string_view s, std::size_t i, char32_t& cp);

// Appends `cp` (at most U+10FFFF) as UTF-8.
void append_utf8(std::string& out, char32_t cp);

}  // namespace gavel::lang
