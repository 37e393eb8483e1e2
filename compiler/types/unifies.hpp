#pragma once
// Whether two types admit a common value (OPA's `unifies` in check.go): the
// test behind every "invalid argument(s)" and "match error". `any` unifies
// with everything but functions; a union with anything one of its members
// unifies with; arrays, objects and sets element by element. Null types
// unify with nothing.

#include "compiler/types/type.hpp"

namespace gavel::compiler::types {

bool unifies(const TypePtr& a, const TypePtr& b);

}  // namespace gavel::compiler::types
