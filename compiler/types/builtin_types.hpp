#pragma once
// Builtins as the type checker sees them: a declaration's signature as a
// function type (unions sorted as OPA sorts them, with the names OPA shows),
// and the root environment holding every builtin's type at its name (OPA's
// typeChecker.Env).

#include <map>
#include <memory>
#include <string>

#include "compiler/types/type_env.hpp"
#include "lang/builtins.hpp"

namespace gavel::compiler::types {

TypePtr type_from(const lang::Type& t);
TypePtr function_type(const lang::BuiltinDecl& decl);

// The table's builtins and an embedder's (which take precedence), each at its dotted name.
EnvPtr builtin_env(const std::map<std::string, std::shared_ptr<const lang::BuiltinDecl>>& custom);

}  // namespace gavel::compiler::types
