#pragma once
// `-s PATH` as OPA's loader.Schemas reads it: a file is the schema of
// `input` (`schema` itself); a directory is walked (every file, in name
// order, whatever its extension) and a/b.json becomes schema.a.b (the
// extension dropped from the last part). Each file is JSON, or else YAML.
// Errors read as OPA's: "1 error occurred during loading: stat x: no such
// file or directory", "... x.json: <parse error>".
//
// The compiler takes schemas as plain JSON trees (lang/json_tree.hpp), not
// runtime Values: it sits below the runtime, so they are converted here
// (runtime/value_json_tree.hpp).

#include <memory>
#include <string>

#include "compiler/schema_set.hpp"
#include "lang/json_tree.hpp"
#include "runtime/value.hpp"

namespace gavel::engine {

struct SchemaLoadResult {
    std::shared_ptr<const compiler::SchemaSet> schemas;  // null on error
    std::string error;
};

SchemaLoadResult load_schemas(const std::string& path);

}  // namespace gavel::engine
