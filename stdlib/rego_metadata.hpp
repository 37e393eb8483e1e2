#pragma once
// rego.metadata.rule() and rego.metadata.chain(): the `# METADATA` annotations
// of the rule being evaluated, in OPA's JSON shape. They depend only on where
// the call is written, so the planner asks for them once and plans the call
// as a constant (as OPA's compiler rewrites these calls).

#include <span>

#include "lang/ast.hpp"
#include "runtime/value.hpp"

namespace gavel::stdlib {

// One annotation block as OPA prints it: known keys only, `authors` as
// [{name, email}], `related_resources` as [{ref, description}], `scope` always.
runtime::Value annotation_object(const lang::Annotation& annotation);

// rego.metadata.rule(): the rule-scope annotations of `rule` (the nearest
// block when several), or {} when it has none.
runtime::Value metadata_rule(const lang::Module& module, const lang::Rule& rule);

// rego.metadata.chain(): [{path, annotations}] from the rule outwards: the
// rule itself (path only when unannotated), its document, its package (from
// any module of that package), then enclosing `subpackages` scopes.
runtime::Value metadata_chain(std::span<const lang::Module* const> modules, const lang::Module& module,
                              const lang::Rule& rule);

}  // namespace gavel::stdlib
