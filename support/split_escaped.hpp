#pragma once
// How OPA's rule index reads a glob.match pattern (in evaluation and in partial
// evaluation): splitStringEscaped, and whether a part can be looked up as a literal.

#include <string>
#include <string_view>
#include <vector>

namespace gavel::support {

// Split at any byte of `delim` that a backslash does not escape.
std::vector<std::string> split_escaped(std::string_view s, std::string_view delim);

// A part holds a glob metacharacter (`[`, `?`, `{`, `*`) no backslash escapes: the
// index cannot look it up as a literal.
bool has_glob_metachar(std::string_view part);

}  // namespace gavel::support
