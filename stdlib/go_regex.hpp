// Go's regexp package semantics on RE2 (same syntax family): compilation
// with Go's error messages, and the iteration rules of FindAll, Split and
// ReplaceAllString (empty matches, advancing by one rune).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <re2/re2.h>

#include "runtime/work_budget.hpp"

namespace gavel::stdlib::goregex {

struct Compiled {
    std::shared_ptr<const RE2> re;  // null on error
    std::string error;              // Go's: "error parsing regexp: missing closing ]: `[`"
};

// Compiles through a shared bounded cache.
Compiled compile(std::string_view pattern);

// A match: byte offsets of the whole match and of each group (-1 if unset).
using Match = std::vector<std::ptrdiff_t>;  // 2 * (groups + 1)

// Each function below asks `budget` as it goes (each match is work, and
// memory) and returns nullopt when the evaluation must stop.

// Go's FindAll*Index: at most n matches (n < 0: all).
std::optional<std::vector<Match>> find_all(const RE2& re, std::string_view text, std::int64_t n, bool groups,
                                           runtime::WorkBudget& budget);

// Go's Regexp.Split(s, -1).
std::optional<std::vector<std::string_view>> split(const RE2& re, std::string_view pattern, std::string_view text,
                                                   runtime::WorkBudget& budget);

// Go's Regexp.ReplaceAllString (with $1 / ${name} expansion); the result grows
// only within the memory limit.
std::optional<std::string> replace_all(const RE2& re, std::string_view text, std::string_view replacement,
                                       runtime::WorkBudget& budget);

}  // namespace gavel::stdlib::goregex
