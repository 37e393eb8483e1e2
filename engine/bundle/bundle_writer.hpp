#pragma once
// Writing a bundle archive as OPA's bundle.Writer does: /data.json (the whole
// data tree), the modules, /.signatures.json when signed, /.manifest when it
// says anything. Signing hashes what is written exactly as OPA's
// GenerateSignature: modules as raw bytes, data.json and .manifest as their
// canonical JSON (engine/bundle/file_hash.hpp).
//
// merge_bundles is OPA's MergeWithRegoVersion, for `build -b a -b b`: roots
// are concatenated (and must not overlap), each bundle's data is taken below
// its roots, and per-file rego versions are recorded where a module's
// dialect differs from the merged bundle's.

#include <optional>
#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"
#include "engine/bundle/signatures.hpp"

namespace gavel::engine::bundle {

struct WriteOptions {
    const SigningConfig* signing = nullptr;  // sign the output
    std::string key_id;                      // "kid" header and "keyid" claim of the signature
};

// The .tar.gz bytes; nullopt and `error` when signing fails.
std::optional<std::string> write_bundle(Bundle& bundle, const WriteOptions& options, std::string& error);

// The digests a signature of `bundle` lists, in OPA's order (modules, data.json, .manifest).
std::vector<FileDigest> bundle_digests(const Bundle& bundle);

std::optional<Bundle> merge_bundles(std::vector<Bundle> bundles, bool v0_default, std::string& error);

}  // namespace gavel::engine::bundle
