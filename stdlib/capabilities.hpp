#pragma once
// OPA's capabilities document (`opa capabilities --current`) for what gavel
// supports: the declared builtins that are implemented (or native to the
// evaluator), plus an embedder's own, each with its type declaration.

#include <span>

#include "lang/builtins.hpp"
#include "runtime/value.hpp"
#include "stdlib/registry.hpp"

namespace gavel::stdlib {

runtime::Value capabilities_document(const Registry& registry, std::span<const lang::BuiltinDecl* const> extra = {});

// One builtin as capabilities.json lists it: {"name", "decl", "infix"?, "deprecated"?, ...}.
runtime::Value builtin_capability(const lang::BuiltinDecl& d);

// OPA's JSON shapes of types: {"type": "number"}, {"type": "function", "args": [...], "result": ...}.
runtime::Value type_decl(const lang::Type& t);
runtime::Value signature_decl(const lang::Signature& s);

}  // namespace gavel::stdlib
