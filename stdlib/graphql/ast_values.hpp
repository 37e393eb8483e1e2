#pragma once
// Conversions between GraphQL documents and Rego values, in the JSON shape
// OPA produces: gqlparser's structs marshalled by encoding/json, then pruned
// of "Position" members, nulls, and empty arrays/objects.
//
// The reverse direction accepts such objects (graphql.parse and friends take
// either a string or an AST object), like OPA's JSON round trip into the Go
// structs: unknown members are ignored, absent ones take their zero value, and
// members of the wrong JSON type are errors.

#include <string>
#include <variant>

#include "runtime/value.hpp"
#include "stdlib/graphql/ast.hpp"

namespace gavel::stdlib::graphql {

runtime::Value query_to_value(const QueryDocument& doc);
runtime::Value schema_to_value(const SchemaDocument& doc);

// Errors are messages without a position (they come from JSON decoding).
std::variant<QueryDocument, std::string> query_from_value(const runtime::Value& v);
std::variant<SchemaDocument, std::string> schema_from_value(const runtime::Value& v);

}  // namespace gavel::stdlib::graphql
