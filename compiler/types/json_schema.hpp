#pragma once
// A JSON Schema document compiled as OPA compiles one (its copy of
// gojsonschema, in that library's default "hybrid" draft, or the draft
// `$schema` names): every subschema is checked for well-formedness with
// gojsonschema's messages (a `type` that is no JSON type, `properties` that is
// no object, `minLength: -1` ...), every `$ref` is resolved, within the
// document, to the subschema it names (JSON pointers such as
// `#/definitions/a`, and `$id`s), and every keyword is recorded. It is the one
// schema compiler: the type checker derives types from it (schema_types.hpp)
// and json.match_schema / json.verify_schema validate against it
// (stdlib/json_schema.cpp). A recursive schema becomes a graph with cycles.
//
// What gavel does not do that OPA does: load `$ref`s from the network or from
// files (OPA does, when its capabilities allow; gavel reports them as OPA does
// a disallowed one, "remote reference loading disabled: URL"). Regular
// expressions are the caller's (the compiler layer has no Go regex engine):
// `patternProperties` keys, and `pattern` when the caller asks (OPA's builtins
// do, its type checker does not: many patterns are ECMA-262, not RE2), are
// checked through CompileSchemaOptions::regex_compiles.
//
// Subschemas nest at most max_depth deep (through `$ref`s too) and number at
// most max_nodes: a deeper or larger document is an error, never a deep
// recursion or a runaway compilation.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lang/json_tree.hpp"

namespace gavel::compiler::types {

struct SubSchema;

// `additionalProperties` / `additionalItems`: absent, `true`/`false`, or a schema.
struct SchemaOrBool {
    std::optional<bool> boolean;
    const SubSchema* schema = nullptr;
};

// One `dependencies` entry: the names the key requires, or a schema the object must match.
struct Dependency {
    std::string key;
    std::vector<std::string> required;
    const SubSchema* schema = nullptr;  // null: `required` applies
};

// Every keyword gojsonschema records. Numbers are their exact JSON text (a
// validator reads them exactly); `enum` and `const` values are canonical JSON
// text (canonical_json), which is what gojsonschema compares.
struct SubSchema {
    std::size_t index = 0;           // position in CompiledSchema::nodes
    std::optional<bool> pass;        // a `true` / `false` schema (draft 6 on): no keywords
    const SubSchema* ref = nullptr;  // `$ref`: the subschema it names (its siblings are not read)
    std::vector<std::string> types;  // `type`, in the order written ("integer", "null" ...)

    std::vector<std::pair<std::string, const SubSchema*>> properties;
    SchemaOrBool additional_properties;
    std::vector<std::pair<std::string, const SubSchema*>> pattern_properties;  // regex text, schema
    const SubSchema* property_names = nullptr;
    std::vector<Dependency> dependencies;
    std::vector<std::string> required;
    std::optional<std::int64_t> min_properties, max_properties;

    std::vector<const SubSchema*> items;  // `items`: one schema, or one per position
    bool items_single = false;            // `items` is one schema
    SchemaOrBool additional_items;
    std::optional<std::int64_t> min_items, max_items;
    bool unique_items = false;
    const SubSchema* contains = nullptr;

    // Draft 4's boolean exclusiveMinimum/Maximum already moved the bound to the exclusive one.
    std::optional<std::string> multiple_of, minimum, maximum, exclusive_minimum, exclusive_maximum;

    std::optional<std::int64_t> min_length, max_length;
    std::optional<std::string> pattern;
    std::string format;

    std::optional<std::string> const_json;
    bool enum_present = false;  // `enum: []` matches nothing; no `enum` matches anything
    std::vector<std::string> enum_json;

    std::vector<const SubSchema*> any_of, all_of, one_of;
    const SubSchema* not_schema = nullptr;
    const SubSchema* if_schema = nullptr;
    const SubSchema* then_schema = nullptr;
    const SubSchema* else_schema = nullptr;
};

struct CompiledSchema {
    const SubSchema* root = nullptr;
    std::vector<std::unique_ptr<SubSchema>> nodes;  // owns every subschema
};

inline constexpr std::size_t kMaxSchemaDepth = 256;
inline constexpr std::size_t kMaxSchemaNodes = 250000;  // ~200 MB of compiled subschemas

struct CompileSchemaOptions {
    // Whether a regular expression compiles (Go's regexp syntax). Unset: not checked.
    std::function<bool(const std::string&)> regex_compiles;
    bool check_pattern = false;  // also `pattern` ("pattern must be a valid regex"), not only patternProperties
    // Asked with each unit of work done (a subschema, a JSON node, an enum value); true: stop now.
    std::function<bool(std::size_t)> should_stop;
    std::size_t max_depth = kMaxSchemaDepth;
    std::size_t max_nodes = kMaxSchemaNodes;
};

struct CompileSchemaResult {
    std::unique_ptr<CompiledSchema> schema;  // null on error
    std::string error;                       // as OPA words it: "unable to compile the schema: ..."
    std::string reason;                      // the same without "unable to compile the schema: "
    bool stopped = false;                    // should_stop said stop
};

CompileSchemaResult compile_json_schema(const lang::JsonTree& document, const CompileSchemaOptions& options = {});

// A value as gojsonschema's marshalWithoutNumber writes it (Go's json.Marshal
// after a round trip through float64: numbers as float64, object keys sorted,
// <, > and & escaped): equal JSON values give equal text.
std::string canonical_json(const lang::JsonTree& value);

}  // namespace gavel::compiler::types
