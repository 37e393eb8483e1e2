#pragma once
// The AST as JSON in the shape of `opa parse --format json`, and as an
// indented tree for people (`gavel parse --format pretty`).

#include <string>

#include "lang/ast.hpp"

namespace gavel::lang {

std::string module_to_json(const Module& module, bool with_locations = false);
std::string module_to_pretty(const Module& module);

}  // namespace gavel::lang
