#pragma once
// Deep copies of AST nodes. The compiler rewrites the modules it is given in
// place, so it first takes copies that share no node with the parser's
// output (terms are shared pointers: a shallow copy would alias them).

#include "lang/ast.hpp"

namespace gavel::compiler {

lang::TermPtr copy_term(const lang::TermPtr& t);
lang::Expr copy_expr(const lang::Expr& e);
lang::Body copy_body(const lang::Body& b);
lang::BodyPtr copy_body_ptr(const lang::BodyPtr& b);
lang::RuleHead copy_head(const lang::RuleHead& h);
// The rule and its whole else chain (walked iteratively: chains can be long).
lang::Rule copy_rule(const lang::Rule& r);
lang::Module copy_module(const lang::Module& m);

}  // namespace gavel::compiler
