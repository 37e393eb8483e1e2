#pragma once
// A JSON Schema document compiled as OPA compiles one before it derives a
// type from it (OPA's compileSchema, done by its copy of gojsonschema in that
// library's default "hybrid" draft, or the draft `$schema` names): every
// subschema is checked for well-formedness with gojsonschema's messages (a
// `type` that is no JSON type, `properties` that is no object, `minLength: -1`
// ...), and every `$ref` is resolved, within the document, to the subschema it
// names: JSON pointers (`#/definitions/a`, `#/$defs/a`, `#/properties/b`) and
// `$id`s. A recursive schema becomes a graph with cycles, which the type
// derivation (schema_types.hpp) unfolds to a bounded depth.
//
// What gavel does not do that OPA does: load `$ref`s from the network or from
// files (OPA does, when its capabilities allow; gavel reports them as OPA does
// a disallowed one, "remote reference loading disabled: URL"). Like OPA it
// does not compile `pattern` regexes (many are ECMA-262, not RE2).
//
// Subschemas nest at most kMaxSchemaDepth deep (through `$ref`s too): a deeper
// document is an error, never a deep recursion.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lang/json_tree.hpp"

namespace gavel::compiler::types {

// The keywords OPA's type derivation reads; the others are only checked.
struct SubSchema {
    std::vector<std::string> types;  // `type`, in the order written ("integer", "null" ...)
    const SubSchema* ref = nullptr;  // `$ref`: the subschema it names (its siblings are not read)
    std::vector<std::pair<std::string, const SubSchema*>> properties;
    std::vector<const SubSchema*> items;  // `items`: one schema, or one per position
    bool items_single = false;            // `items` is one schema
    std::vector<const SubSchema*> any_of;
    std::vector<const SubSchema*> all_of;
};

struct CompiledSchema {
    const SubSchema* root = nullptr;
    std::vector<std::unique_ptr<SubSchema>> nodes;  // owns every subschema
};

struct CompileSchemaResult {
    std::unique_ptr<CompiledSchema> schema;  // null on error
    std::string error;                       // as OPA words it: "unable to compile the schema: ..."
};

CompileSchemaResult compile_json_schema(const lang::JsonTree& document);

inline constexpr std::size_t kMaxSchemaDepth = 256;

}  // namespace gavel::compiler::types
