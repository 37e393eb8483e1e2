#pragma once
// OPA's IsGround: a term without variables (a ref's head aside), looking into
// comprehensions' heads and bodies. The compiler (safety, constant keys) and
// the formatter (ref heads, rule keys) ask it alike.

#include "lang/ast.hpp"

namespace gavel::lang {

bool is_ground(const Term& t);

}  // namespace gavel::lang
