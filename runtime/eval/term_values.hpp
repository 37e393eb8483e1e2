#pragma once
// AST terms as runtime values: scalars for the planner, and whole constant
// terms for inputs written in Rego (`{1, 2}`, `set()`, `{"a": [1.0]}`).

#include <string>

#include "lang/ast.hpp"
#include "runtime/value.hpp"

namespace gavel::eval {

struct TermValue {
    bool ok = false;
    runtime::Value value;
    std::string error;
};

TermValue scalar_value(const lang::Term& t);
// Fails (with the reason) for terms with variables, refs, calls or comprehensions.
TermValue constant_value(const lang::Term& t);

}  // namespace gavel::eval
