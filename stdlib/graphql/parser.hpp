#pragma once
// GraphQL parsers: executable documents (queries) and schema documents
// (SDL). They follow gqlparser's grammar decisions and error messages, which
// OPA reports verbatim, e.g. `Expected Name, found <EOF>` at 1:2.

#include <string_view>
#include <variant>

#include "stdlib/graphql/ast.hpp"

namespace gavel::stdlib::graphql {

// Inputs larger than this, or nested deeper than kMaxDepth, are refused with
// an error instead of risking memory or stack exhaustion.
inline constexpr std::size_t kMaxInputBytes = 16u << 20;
inline constexpr int kMaxDepth = 256;

std::variant<QueryDocument, Error> parse_query(std::string_view source);
// built_in marks every definition as part of the prelude (BuiltIn: true).
std::variant<SchemaDocument, Error> parse_schema(std::string_view source, bool built_in = false);

}  // namespace gavel::stdlib::graphql
