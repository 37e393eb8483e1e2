#pragma once
// What OPA checks before it formats a module for v1 (ast.CheckRegoV1 with the
// checks formatting makes moot turned off): no duplicate imports, no rule or
// variable named `input`/`data`, no deprecated builtins, no keyword as a rule name.

#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::lang::format {

Diagnostics check_rego_v1(const Module& module);

}  // namespace gavel::lang::format
