#pragma once
// Spec 5.3.2 "Field Selection Merging" (graphql-js/gqlparser's
// OverlappingFieldsCanBeMerged): fields answering to the same response name
// must be the same field with the same arguments (unless their parent types
// can never both apply), must return compatible types, and their
// sub-selections must merge too.

#include <optional>
#include <vector>

#include "stdlib/graphql/ast.hpp"
#include "stdlib/graphql/schema.hpp"

namespace gavel::stdlib::graphql {

// The first conflict among the fields of `selections` (whose parent type is
// `parent`, or null when unknown), following fragment spreads. `comparisons`
// counts work across calls for one document; past a limit the document is
// refused as too complex.
std::optional<Error> find_field_conflict(const Schema& schema, const QueryDocument& doc,
                                         const std::vector<Selection>& selections, const Definition* parent,
                                         std::size_t& comparisons);

}  // namespace gavel::stdlib::graphql
