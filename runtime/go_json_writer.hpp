#pragma once
// Writing responses as OPA's server writes them with Go's encoding/json: values
// escaped as Go's encoder does by default (<, > and & as \u003c ...), objects
// built in the field order of OPA's response structs, `?pretty` output indented
// as json.Indent does, and the trailing newline json.Encoder adds.

#include <string>
#include <string_view>

#include "lang/json_tree.hpp"
#include "runtime/value.hpp"

namespace gavel::runtime {

// Compact JSON building blocks (appended to `out`).
void append_go_value(std::string& out, const runtime::Value& v);
void append_go_string(std::string& out, std::string_view s);
void append_go_tree(std::string& out, const lang::JsonTree& tree);

// Go's json.Indent(dst, compact, "", "  ") of a compact document.
std::string go_indent(std::string_view compact);

// What json.Encoder writes for a compact document: indented when `pretty`, and a newline.
std::string go_encoded(std::string_view compact, bool pretty);

}  // namespace gavel::runtime
