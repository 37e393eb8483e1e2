#pragma once
// AST -> plan. The stages, in order:
//   1. rule tree: every rule lands at its data path; rules of one path form a RuleSet
//   2. resolve: names become locals (frame slots), data refs, imports, builtins or functions
//   3. rewrite: `:=`, `some ... in`, `every`, calls with an output argument, templates
//   4. order: body literals are reordered so variables are bound before use
//      (rego_unsafe_var_error names the variable that can never be bound)
//   5. recursion: a rule that depends on itself is a rego_recursion_error

#include <vector>

#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"
#include "runtime/eval/plan.hpp"

namespace gavel::eval {

// Plans every module into `program` (whose builtins must be set).
lang::Diagnostics plan_modules(const std::vector<const lang::Module*>& modules, Program& program);

// Plans a query body against a planned program.
lang::Diagnostics plan_query(const lang::Body& body, const Program& program, PlannedQuery& out);

}  // namespace gavel::eval
