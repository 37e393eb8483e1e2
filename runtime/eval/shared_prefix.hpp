#pragma once
// Finds the clauses of a partial set or object that begin with the same literals, up to
// the names of their variables, and groups them (RuleSet::shared_prefixes). The
// evaluator then searches those literals once per evaluation of the set and gives each
// clause of the group the same solutions, in the same order.
//
// Only literals whose evaluation has no effect a repetition would show are shared: no
// `with`, no print, no nondeterministic builtin and no builtin of the embedder's own
// (it may count its calls), anywhere inside them. What they call
// (rules, functions) is cached per query anyway, so the clauses that take the recorded
// solutions see what their own search would have found; builtin errors happen where
// the first clause met them, as they would.

#include "runtime/eval/plan.hpp"
#include "runtime/eval/repeatable.hpp"

namespace gavel::eval {

// `repeatable`: the planner's, whose answers about functions hold for the whole program.
void find_shared_prefixes(RuleSet& set, Repeatable& repeatable);

}  // namespace gavel::eval
