#pragma once
// White space as Go has it (unicode.IsSpace, strings.TrimSpace), for every layer: the
// trim_space builtin and the METADATA blocks OPA's parser finds empty.

#include <string_view>

namespace gavel::support {

// Go's unicode.IsSpace.
bool is_space(char32_t r) noexcept;

// Go's strings.TrimSpace (an invalid byte is U+FFFD, no space).
std::string_view trim_space(std::string_view s) noexcept;

}  // namespace gavel::support
