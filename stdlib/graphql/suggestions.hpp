#pragma once
// "Did you mean ...?" hints appended to validation messages, chosen the way
// gqlparser does: names within a small edit distance of what was typed
// (40% of its length, plus one), closest first, at most five.

#include <string>
#include <string_view>
#include <vector>

namespace gavel::stdlib::graphql {

// The options close enough to `typed`, best first.
std::vector<std::string> suggestion_list(std::string_view typed, const std::vector<std::string>& options);

// " <prefix> "a", "b", or "c"?" (quoted) or " <prefix> a, b, or c?"; "" when
// nothing is close.
std::string did_you_mean(std::string_view prefix, std::string_view typed, const std::vector<std::string>& options,
                         bool quoted);

// "\"a\", \"b\", or \"c\"" (at most five items).
std::string quoted_or_list(const std::vector<std::string>& items);

}  // namespace gavel::stdlib::graphql
