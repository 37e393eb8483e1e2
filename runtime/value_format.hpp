#pragma once
// Values as Rego prints them (OPA's Value.String()): what sprintf's %v, print()
// and template strings show. Strings are quoted inside collections; sets are
// `{1, 2}` and the empty set `set()`; objects `{"a": 1}`.

#include <span>
#include <string>
#include <string_view>

#include "runtime/value.hpp"
#include "runtime/work_budget.hpp"

namespace gavel {

std::string format_value(const runtime::Value& v);
void append_formatted(std::string& out, const runtime::Value& v);
// The same for a builtin's operand, whose text can be far larger than the
// value (one value shared a million times over): `out` grows only within
// `budget`'s memory limit. False when the evaluation must stop.
bool append_formatted(std::string& out, const runtime::Value& v, runtime::WorkBudget& budget);

// A copy of `doc` with `value` placed at `path` (objects created on the way).
runtime::Value set_path(const runtime::Value& doc, std::span<const std::string> path, const runtime::Value& value);

}  // namespace gavel
