#pragma once
// OPA's capabilities document (`opa capabilities --current`) for what gavel
// supports: the builtins of the table that are implemented (or native to the
// evaluator), plus an embedder's own, each with its type declaration.

#include <span>

#include "runtime/value.hpp"
#include "stdlib/registry.hpp"

namespace gavel::stdlib {

runtime::Value capabilities_document(const Registry& registry, std::span<const Builtin* const> extra = {});

// One builtin as capabilities.json lists it: {"name", "decl", "infix"?, "deprecated"?, ...}.
runtime::Value builtin_capability(const Builtin& b);

}  // namespace gavel::stdlib
