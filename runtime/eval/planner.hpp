#pragma once
// Compiled AST -> plan. The compiler (compiler/) has checked and rewritten the
// modules: references resolved, locals uniquely named, bodies ordered. The
// planner only lowers what it gets:
//   * rules of one path form a RuleSet; the rule tree of `data` is built;
//   * each rule's variables become frame slots, constants Values, calls
//     point at their builtin or function;
//   * the compiler's temporaries are fused back where that keeps the meaning
//     (`f(x, t); y = t` runs as `y = f(x)`), and `v = xs[k]` over a fresh k
//     iterates xs directly;
//   * each clause gets the guards OPA's rule index checks before its body, and
//     rules testing the same input path with constants are grouped by it.

#include "compiler/compiler.hpp"
#include "lang/diagnostics.hpp"
#include "runtime/eval/plan.hpp"

namespace gavel::eval {

// Lowers compiled modules into `program` (whose builtins must be set).
lang::Diagnostics plan_modules(std::shared_ptr<const compiler::CompiledModules> compiled, Program& program);

// The same for modules no one else holds (a one-shot run): each clause's body
// moves into the plan instead of being copied, so the compiled AST and the
// plan are never both whole in memory. The compiled modules keep their heads,
// rule tree and types (what queries compile against), not their bodies:
// nothing that reads rule bodies (partial evaluation) may use them afterwards.
lang::Diagnostics plan_modules_taking_bodies(std::shared_ptr<compiler::CompiledModules> compiled, Program& program);

// Lowers a compiled query against a planned program. `capture` maps each
// result expression's capture variable (generated name) when the query was
// compiled to capture values.
lang::Diagnostics plan_query(const compiler::CompiledQuery& query, const Program& program, PlannedQuery& out);

}  // namespace gavel::eval
