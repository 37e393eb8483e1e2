#pragma once
// The order the type checker takes rules in (OPA's Graph.Sort): every rule
// after the rules it refers to (ctx.rule_graph, made by check_recursion), so
// that their types are known when it is checked. Each clause of an else chain
// is a rule of its own. Recursion has been refused before, so there are no
// cycles.

#include <vector>

#include "compiler/context.hpp"

namespace gavel::compiler::types {

std::vector<const lang::Rule*> rules_in_dependency_order(const CompileContext& ctx);

}  // namespace gavel::compiler::types
