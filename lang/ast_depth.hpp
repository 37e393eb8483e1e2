#pragma once
// How deeply a parsed AST nests. Bracket nesting is refused before parsing
// (source_scan), but `1 + 1 + ...` or `a | b | ...` nest one call per operator
// without any bracket; every later stage walks terms recursively, so the parser
// refuses trees deeper than ParseOptions::max_depth. The walk itself keeps an
// explicit stack.
//
// Levels: a term is one level, and what it holds (ref parts, elements, call
// arguments and operands, comprehension heads and bodies) sits one level below
// it. The literals of a body sit at the level of the body.

#include <cstddef>
#include <optional>

#include "lang/ast.hpp"

namespace gavel::lang {

// Where the first node deeper than `limit` levels sits, if any.
std::optional<Location> find_too_deep(const Rule& rule, std::size_t limit);
std::optional<Location> find_too_deep(const Body& body, std::size_t limit);
std::optional<Location> find_too_deep(const TermPtr& term, std::size_t limit);

}  // namespace gavel::lang
