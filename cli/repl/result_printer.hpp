#pragma once
// How the REPL shows a query's results, as OPA's REPL does.
//
// pretty (default): no result -> "undefined"; one result without variables
//   whose expressions are one value or all booleans -> that (first) value as
//   indented JSON; anything else -> a table with a column per variable
//   (sorted) and one per non-boolean expression, cells as compact JSON cut at
//   80 characters ("...").
// json: {"result": [{"expressions": [...], "bindings": {...}}]} as `opa eval`
//   prints it; "{}" when undefined.
// JSON text is written like Go's encoding/json.Marshal: <, > and & escaped.

#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace gavel::cli::repl {

enum class OutputMode { Pretty, Json };

std::string render_results(const ResultRows& rows, OutputMode mode, std::size_t pretty_limit = 80);

// A value as Go's json.MarshalIndent(v, "", "  ") writes it.
std::string pretty_json(const runtime::Value& v);
// A value as Go's json.Marshal writes it.
std::string compact_json(const runtime::Value& v);

}  // namespace gavel::cli::repl
