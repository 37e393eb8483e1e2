#pragma once
// The JSON Schemas given with -s (OPA's SchemaSet), by their ref below the
// root `schema`: a single file is `schema` itself, the type of `input` in
// every module and query; a directory's a/b.json is schema.a.b, which
// METADATA `schemas:` annotations name. No set at all (a null pointer in
// CompileOptions) differs from an empty one, as in OPA: annotations naming a
// schema are then ignored rather than errors.

#include <map>
#include <string>
#include <vector>

#include "lang/json_tree.hpp"

namespace gavel::compiler {

struct SchemaSet {
    std::map<std::vector<std::string>, lang::JsonTree> schemas;  // by path below `schema`

    // The schema at `path`, or null; a JSON null counts as none (OPA's nil).
    const lang::JsonTree* find(const std::vector<std::string>& path) const {
        auto it = schemas.find(path);
        if (it == schemas.end() || it->second.kind == lang::JsonTree::Kind::Null) return nullptr;
        return &it->second;
    }
};

}  // namespace gavel::compiler
