#pragma once
// A bundle's `.manifest`, as OPA's bundle.Manifest:
//
//   {"revision": "v42", "roots": ["kubernetes/admission"], "rego_version": 1,
//    "file_rego_versions": {"/legacy/*.rego": 0}, "metadata": {...}}
//
// Unknown fields are ignored (Go's decoder); a field of the wrong type is an
// error in Go's words. `wasm` resolvers are kept (and written back) but not run.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::engine::bundle {

struct Manifest {
    std::string revision;
    std::optional<std::vector<std::string>> roots;                // unset: [""], the whole of data
    std::optional<int> rego_version;                              // 0 or 1
    std::vector<std::pair<std::string, int>> file_rego_versions;  // glob -> version, sorted by glob
    runtime::Value metadata;                                      // an object, or null when absent
    runtime::Value wasm;                                          // the "wasm" array, or null

    // The roots with OPA's defaults ("" when unset) and slashes trimmed.
    std::vector<std::string> effective_roots() const;
    // The dialect for a module at `path` (bundle-relative, with or without a
    // leading '/'): file_rego_versions (in sorted key order) then rego_version.
    // true: v0. Nothing: the reader's default.
    std::optional<bool> v0_for(std::string_view path) const;
    // As OPA's Manifest.Empty(): nothing that would be written.
    bool empty() const;
};

// `.manifest` text to a Manifest; nullopt and `error` when it is not valid.
std::optional<Manifest> parse_manifest(std::string_view text, std::string& error);

// The manifest as Go's json.Marshal writes it (field order: revision, roots,
// wasm, rego_version, file_rego_versions, metadata; empty optionals omitted).
std::string manifest_json(const Manifest& m);
runtime::Value manifest_value(const Manifest& m);

}  // namespace gavel::engine::bundle
