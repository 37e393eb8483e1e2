#pragma once
// Validation of an executable document against a schema (spec section 5),
// the subset of gqlparser's rules OPA runs: fields, arguments, fragments,
// directives, variables and literal values. The first problem found is
// reported, with gqlparser's wording.

#include <optional>

#include "stdlib/graphql/ast.hpp"
#include "stdlib/graphql/schema.hpp"

namespace gavel::stdlib::graphql {

std::optional<Error> validate_query(const Schema& schema, const QueryDocument& doc);

}  // namespace gavel::stdlib::graphql
