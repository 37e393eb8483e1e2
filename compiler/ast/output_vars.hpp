#pragma once
// Which variables an expression binds (its "output" variables), given the
// variables already bound: OPA's outputVarsForExpr, Unify and friends. The
// safety check reorders a body by them; several rewrites ask them too.

#include "compiler/ast/var_set.hpp"
#include "compiler/ast/var_visitor.hpp"
#include "lang/ast.hpp"

namespace gavel::compiler {

// OPA's Unify: the variables `a = b` binds when `safe` are bound.
VarSet unify_vars(const VarSet& safe, const lang::Term& a, const lang::Term& b);

// Is the ref's head (and, for a call head, its operands) bound?
bool is_ref_safe(const lang::Term& ref, const VarSet& safe);
bool is_call_safe(const lang::Term& call, const VarSet& safe);

// The variables `e` binds given `safe` (never including `safe`).
//
// `scratch`, when given, is OPA's `output` set, shared by the expressions of one body as the
// safety check and outputVarsForBody share it: a call leaves its outputs there (those of its
// refs alone when its inputs are unsafe) and the next equality unifies with them as if bound.
// So in `count({w}, z); y = z`, with `w` unsafe (a set operand does not block a call's output),
// `y = z` binds `y` and `z` and only `w` is reported unsafe, as in OPA.
VarSet output_vars_for_expr(const lang::Expr& e, const ArityFn& arity, const VarSet& safe, VarSet* scratch = nullptr);
// The variables a body binds, expression by expression in order, given `safe`.
VarSet output_vars_for_body(const lang::Body& body, const ArityFn& arity, const VarSet& safe);
// The variables bound by the refs of an expression or term (iteration).
void output_vars_for_terms(const lang::Expr& e, const VarSet& safe, VarSet& out);
void output_vars_for_terms(const lang::Term& t, const VarSet& safe, VarSet& out);

// The variables of a one-literal `not`/`and`/`or` operand body that it
// cannot bind itself (OPA's unsafeImplicitBodyVars).
VarSet unsafe_implicit_body_vars(const lang::Body& body, const ArityFn& arity);

}  // namespace gavel::compiler
