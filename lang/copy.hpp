#pragma once
// Deep copies of AST nodes, sharing no node with the original (terms are
// shared pointers: a shallow copy would alias them). The compiler rewrites the
// modules it is given in place, and the AST printers normalise a module the
// caller keeps, so both work on copies.

#include "lang/ast.hpp"

namespace gavel::lang {

TermPtr copy_term(const TermPtr& t);
Expr copy_expr(const Expr& e);
Body copy_body(const Body& b);
BodyPtr copy_body_ptr(const BodyPtr& b);
RuleHead copy_head(const RuleHead& h);
// The rule and its whole else chain (walked iteratively: chains can be long).
Rule copy_rule(const Rule& r);
Module copy_module(const Module& m);

}  // namespace gavel::lang
