#pragma once
// Internal to the objects/arrays/json families: the registration hooks of the
// files they are split into, and OPA's message for a bad element of a
// composite operand.

#include <string>
#include <string_view>

#include "stdlib/registry.hpp"

namespace gavel::stdlib {

void register_json_documents(Registry& r);  // json.filter, json.remove, json.patch
void register_set_unions(Registry& r);      // intersection, union (of a set of sets)
void register_json_schema(Registry& r);     // json.verify_schema, json.match_schema
void register_yaml(Registry& r);            // yaml.marshal, yaml.unmarshal, yaml.is_valid

}  // namespace gavel::stdlib
