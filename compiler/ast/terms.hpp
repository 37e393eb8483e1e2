#pragma once
// Small questions and constructors about AST terms and expressions that the
// compiler's stages share: OPA's IsGround, IsScalar, IsConstant, expression
// shapes (equality, assignment, call), operator names.

#include <string>
#include <string_view>

#include "lang/ast.hpp"
#include "lang/ground.hpp"

namespace gavel::compiler {

bool is_scalar(const lang::Term& t);
using lang::is_ground;                  // no variables (a ref's head aside): lang/ground.hpp
bool is_constant(const lang::Term& t);  // no variables, refs, calls or comprehensions anywhere
bool is_comprehension(const lang::Term& t);
// OPA's requiresEval: contains a ref or a comprehension (anywhere inside).
bool requires_eval(const lang::Term& t);

// Whether anything in a rule head (arguments, key, value, ref parts after the first) is not a scalar.
bool head_may_have_vars(const lang::RuleHead& h);
bool contains_closure(const lang::Expr& e);  // a comprehension, every, not {...}, and/or, template

// A ref rooted at `data` or `input` (a bare `input` counts).
bool is_ref_to(const lang::Term& t, std::string_view root);
// The number of leading parts of a ref that are ground (OPA's GroundPrefix length).
std::size_t ground_prefix_length(const lang::Term& ref);

// Expressions of the shape `op(args...)`.
bool is_call_expr(const lang::Expr& e);
// A call of the global builtin `name` (eq, assign, equal): `x = y` is eq(x, y).
bool is_global_call(const lang::Expr& e, std::string_view name);
inline bool is_equality(const lang::Expr& e) { return is_global_call(e, "eq"); }
inline bool is_assignment(const lang::Expr& e) { return is_global_call(e, "assign"); }
// The operands of a call expression (its arguments).
std::size_t operand_count(const lang::Expr& e);
const lang::TermPtr& operand(const lang::Expr& e, std::size_t i);
// The operator of a call term or call expression: a Ref.
const lang::Term& operator_of(const lang::Term& call);

// A ref's parts as a dotted name when every part after its var head is a
// string ("io.jwt.decode", "data.a.b"), else "".
std::string dotted_name(const lang::Term& ref);

// `lhs = rhs` as the compiler generates it.
lang::Expr make_equality(lang::TermPtr lhs, lang::TermPtr rhs, const lang::Location& loc, bool generated);
// OPA's appendToBody: a body that is only `true` is replaced by the first expression.
void append_to_body(lang::Body& body, lang::Expr e);

}  // namespace gavel::compiler
