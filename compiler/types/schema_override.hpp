#pragma once
// A document typed by a METADATA `schemas:` entry, and how a rule's
// environment takes that type (OPA's checkRule with getPrefix and override).
// The type goes to the nearest enclosing document that already has a type
// (`input` for `input.request.object`; `data`, the object of all rules, for
// `data.acl`), rewritten so that the path below it has the schema's type:
// a key the type has is replaced, one it lacks is added (with OPA's dynamic
// part: any: any below a document of no object type). A document with no
// typed prefix is given the type at its own path.

#include <optional>
#include <string>
#include <vector>

#include "compiler/types/type_env.hpp"
#include "lang/ast.hpp"

namespace gavel::compiler::types {

struct DocumentSchema {
    const lang::Term* ref;  // the document: a Ref (`input.x`, `data.a`)
    TypePtr type;
};

// Gives `schema.ref` its type in `env`; `put` receives the tree path that
// was set (for the caller to forget what `memo` remembered of it). An error
// message when a path part can be no object key (a variable).
std::optional<std::string> apply_document_schema(TypeEnv& env, const DocumentSchema& schema, Memo& memo,
                                                 std::vector<std::string>& put);

}  // namespace gavel::compiler::types
