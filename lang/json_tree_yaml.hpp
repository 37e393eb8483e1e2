#pragma once
// YAML (of METADATA blocks) as JsonTree, typed as OPA's YAML library
// (go-yaml v3) types plain scalars: true/false, null/~/empty, numbers; a
// quoted scalar is always a string.

#include <cstddef>
#include <optional>
#include <string>

#include "lang/json_tree.hpp"
#include "lang/yaml_node.hpp"

namespace gavel::lang {

// A scalar node as a JSON value (kind and text).
JsonTree yaml_scalar(const yaml::Node& node);

// A whole node. Mapping keys must be scalars (else OPA's "invalid map key
// type(s): a/b"); nesting deeper than `max_depth` is an error too, so that no
// input recurses without bound, and so are more than `max_nodes` values
// (aliases share their anchor's node, but a walk meets it each time).
// `error` is set when nullopt is returned.
std::optional<JsonTree> yaml_to_json_tree(const yaml::Node& node, std::string& error, std::size_t max_depth = 256,
                                          std::size_t max_nodes = 1000000);

}  // namespace gavel::lang
