#pragma once
// The type of a JSON Schema, derived as OPA derives it (OPA's loadSchema:
// compileSchema, then its schemaParser):
//
//   - `$ref` is the type of the schema it names (its siblings are ignored);
//   - `anyOf` is the union of its members' types, with the schema's own
//     type when that is an object with properties;
//   - `allOf` merges its members (and the schema itself, when both are
//     objects or both arrays): their `type`s must be equal ("unable to merge
//     these schemas"), their properties are put together, array items
//     position by position;
//   - `type` (the first that applies of boolean, string, integer/number,
//     object, array; "null" alone types nothing): an object with
//     `properties` has exactly those keys (`additionalProperties` is not
//     read, as in OPA, so a misspelt key is an error), one without is
//     object[any: any]; an array's `items` is its element type, or one type
//     per position; without `items` array[any];
//   - no `type`: `properties` make an object, `items` an array, else `any`.
//   - `required`, `enum`, `const`, `oneOf`, `not`, `if` ... type nothing.
//
// A recursive schema (a `$ref` back into itself) has no finite type; OPA
// keeps a cyclic type, gavel unfolds each cycle a few times and types what
// lies beyond as `any` (less precise there, never wrong). The unfolding
// shrinks when the type would grow past a size that keeps every later walk
// over it cheap; a schema too large or deep even then is an error.

#include <string>

#include "compiler/types/type.hpp"
#include "lang/json_tree.hpp"

namespace gavel::compiler::types {

struct SchemaTypeResult {
    TypePtr type;       // null on error
    std::string error;  // as OPA words it ("unable to compile the schema: ...", "type checking: ...")
};

SchemaTypeResult schema_type(const lang::JsonTree& document);

// How often a recursive `$ref` is re-entered before what lies beyond is `any`,
// and the most parts (nodes, as a tree) a schema's type may have.
inline constexpr unsigned kSchemaUnfold = 4;
inline constexpr std::size_t kMaxSchemaTypeSize = 1000000;

}  // namespace gavel::compiler::types
