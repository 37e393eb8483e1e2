#pragma once
// The AST walks live in lang/walk.hpp. This header only keeps the files of
// compiler/types and runtime/eval building while their own branches are in
// flight; once they include lang/walk.hpp it goes.

#include "lang/walk.hpp"

namespace gavel::compiler {

using lang::for_each_rule;
using lang::walk_exprs;
using lang::walk_exprs_in_expr;
using lang::walk_own_terms;
using lang::walk_rule_exprs;
using lang::walk_terms;
using lang::walk_terms_in_body;
using lang::walk_terms_in_expr;

}  // namespace gavel::compiler
