#pragma once
// A Value as a plain JSON tree (lang/json_tree.hpp), the shape the compiler
// reads JSON documents in (it sits below the runtime and cannot see Values):
// `-s` schema files and the schemas of json.match_schema / json.verify_schema.

#include "lang/json_tree.hpp"
#include "runtime/value.hpp"

namespace gavel::runtime {

// Sets as arrays; numbers as their JSON text; non-string keys as their JSON text.
lang::JsonTree to_json_tree(const Value& v);

}  // namespace gavel::runtime
