#pragma once
// A bundle manifest (OPA's `.manifest`, JSON) found in a directory that is
// loaded (gavel's: OPA's `-d` ignores manifests; `-b` reads them, and this reads
// them as `-b` does). The directory holding it is a bundle root: what the manifest
// says applies to the files below it (the innermost manifest wins):
//
//   {"rego_version": 0,                              // every module below: v0 (1: v1)
//    "file_rego_versions": {"/legacy/*.rego": 0},    // per file: globs of the path from the root
//    "roots": ["kubernetes"]}                        // read and checked for shape only
//
// A module that says `import rego.v1` is v1 whatever the manifest says (the
// parser's rule in either dialect).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/bundle/manifest_file.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::engine {

struct BundleManifest {
    std::string root;           // the directory holding the .manifest
    bundle::Manifest manifest;  // read as `-b` reads a bundle's (engine/bundle/manifest_file.hpp)

    // The dialect for `file` (a path below `root`): true for v0, false for v1, nothing when
    // the manifest does not say. file_rego_versions keys match the bundle-absolute path
    // ("/legacy/a.rego") as OPA's globs do, and beat rego_version.
    std::optional<bool> v0_compatible_for(const std::string& file) const;
};

inline constexpr const char* kManifestName = ".manifest";

// Reads `dir`/.manifest when there is one. Nothing when there is none; a
// manifest that cannot be read or is malformed is an error added to `errors`
// (and nothing is returned).
std::optional<BundleManifest> read_bundle_manifest(const std::string& dir, lang::Diagnostics& errors);

// The nearest manifest for `file`, looked for in its directory and the ones
// above it up to and including `stop_at` (the directory the user named).
std::optional<BundleManifest> find_bundle_manifest(const std::string& file, const std::string& stop_at,
                                                   lang::Diagnostics& errors);

}  // namespace gavel::engine
