#pragma once
// OPA's splitStringEscaped (its rule index for glob.match, in evaluation and in partial
// evaluation): split at any byte of `delim` that a backslash does not escape.

#include <string>
#include <string_view>
#include <vector>

namespace gavel::support {

std::vector<std::string> split_escaped(std::string_view s, std::string_view delim);

}  // namespace gavel::support
