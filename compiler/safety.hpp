#pragma once
// Safety: every variable of a body is bound before it is needed (in a
// negation, a builtin's input, a closure), reordering the body where that
// helps — OPA's reorderBodyForSafety, with its nested bodies (comprehensions,
// every, not, and/or) checked the same way against what encloses them.

#include <unordered_map>
#include <vector>

#include "compiler/ast/var_set.hpp"
#include "compiler/ast/var_visitor.hpp"
#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::compiler {

class CompileContext;

// Expressions and the variables unsafe in them, by expression (identity only).
struct UnsafeEntry {
    lang::Location loc;
    VarSet vars;
};
using UnsafeVars = std::unordered_map<const void*, UnsafeEntry>;

// Reorders `body` (in place, when it is safe) given the variables bound
// around it; returns what stays unsafe (empty: safe).
UnsafeVars reorder_body_for_safety(const ArityFn& arity, const VarSet& globals, lang::Body& body);

// OPA's safetyErrorSlice: "var x is unsafe" per variable (at its first
// location), or "expression is unsafe" when only generated variables are.
void report_unsafe(CompileContext& ctx, const UnsafeVars& unsafe);

}  // namespace gavel::compiler
