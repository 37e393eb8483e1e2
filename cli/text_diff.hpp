#pragma once
// The diff `gavel fmt -d` prints, as `opa fmt -d` prints it: a character-level
// diff (the diff-match-patch algorithm: common prefix and suffix, half-match
// split, Myers bisection, merge cleanup) shown as the new text with deletions
// in red and insertions in green (ANSI colours, DiffPrettyText).

#include <string>
#include <string_view>

namespace gavel::cli {

std::string pretty_diff(std::string_view old_text, std::string_view new_text);

}  // namespace gavel::cli
