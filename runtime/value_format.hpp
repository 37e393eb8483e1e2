#pragma once
// Values as Rego prints them (OPA's Value.String()): what sprintf's %v, print()
// and template strings show. Strings are quoted inside collections; sets are
// `{1, 2}` and the empty set `set()`; objects `{"a": 1}`.

#include <span>
#include <string>
#include <string_view>

#include "runtime/value.hpp"

namespace gavel {

std::string format_value(const runtime::Value& v);
void append_formatted(std::string& out, const runtime::Value& v);

// A copy of `doc` with `value` placed at `path` (objects created on the way).
runtime::Value set_path(const runtime::Value& doc, std::span<const std::string> path, const runtime::Value& value);

}  // namespace gavel
