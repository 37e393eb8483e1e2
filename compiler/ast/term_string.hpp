#pragma once
// Terms and expressions printed as OPA prints them in messages
// (`data.a.b[x]`, `count(x)`, `[x | x = 1]`): OPA's String() forms.

#include <string>

#include "lang/ast.hpp"

namespace gavel::compiler {

std::string to_string(const lang::Term& t);
std::string to_string(const lang::Expr& e);
std::string to_string(const lang::Body& b);

// OPA's ValueName: "var", "ref", "number", "call", "arraycomprehension" ...
std::string value_name(const lang::Term& t);

}  // namespace gavel::compiler
