#pragma once
// Spec 5.3.2 "Field Selection Merging" (graphql-js/gqlparser's
// OverlappingFieldsCanBeMerged): fields answering to the same response name
// must be the same field with the same arguments (unless their parent types
// can never both apply), must return compatible types, and their
// sub-selections must merge too.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stdlib/graphql/ast.hpp"
#include "stdlib/graphql/schema.hpp"

namespace gavel::stdlib::graphql {

// The first conflict among the fields of `selections` (whose parent type is
// `parent`, or null when unknown), following fragment spreads. `work` counts
// effort across calls for one document; past a limit (or past kMaxDepth
// nested spreads) the document is refused as too complex.
using FragmentIndex = std::map<std::string, const Fragment*, std::less<>>;

std::optional<Error> find_field_conflict(const Schema& schema, const FragmentIndex& fragments,
                                         const std::vector<Selection>& selections, const Definition* parent,
                                         std::size_t& work);

}  // namespace gavel::stdlib::graphql
