#pragma once
// An OPA bundle, read from a directory or a .tar.gz, as OPA's bundle.Reader
// reads it:
//
//   * `.manifest`: revision, roots, rego_version, file_rego_versions, metadata
//     (engine/bundle/manifest_file.hpp);
//   * `*.rego`: policies, in the dialect the manifest gives them;
//   * files named data.json, data.yaml or data.yml: data, placed at their
//     directory's path (`a/b/data.json` -> data.a.b; the root one must be an object);
//   * `.signatures.json`: verified when a verification config is given
//     (engine/bundle/signatures.hpp); a signed bundle without one is refused,
//     as is an unsigned bundle when a key id is configured;
//   * anything else is ignored.
//
// Then OPA's roots rules (engine/bundle/roots.hpp). Every error is a value
// whose text starts "bundle <name>: ", as `opa eval -b` prints it; nothing
// throws, and archives are bounded by ArchiveLimits.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/bundle/manifest_file.hpp"
#include "engine/bundle/signatures.hpp"
#include "engine/bundle/tar_reader.hpp"
#include "lang/diagnostics.hpp"
#include "runtime/value.hpp"

namespace gavel::engine::bundle {

struct BundleModule {
    std::string path;  // bundle-relative, '/'-separated, no leading '/'
    std::string name;  // what the engine and errors call it: "<bundle>/<path>"
    std::string text;
    bool v0_compatible = false;
    std::string package_path;  // "kubernetes/admission"
};

struct Bundle {
    std::string name;  // the path it was read from, or its configured name
    Manifest manifest;
    bool has_manifest = false;
    std::vector<BundleModule> modules;  // in bundle order
    runtime::Value data = runtime::Value::empty_object();
    std::vector<std::string> data_files;  // bundle-relative paths of the data files read
    std::vector<std::string> signatures;  // the JWTs of .signatures.json
    std::string etag;                     // set by downloaders
};

struct BundleReadOptions {
    ArchiveLimits limits;
    const VerificationConfig* verification =
        nullptr;                 // null: a signed bundle is refused ("verification key not provided")
    bool skip_verify = false;    // ignore .signatures.json entirely
    bool v0_compatible = false;  // dialect when the manifest says nothing
    // Bundle-relative paths to leave out (build --ignore); null: none.
    std::function<bool(const std::string& path)> ignore;
    // Set (from another thread) to stop reading between files: the read fails with
    // kReadStopped. Null: never.
    const std::atomic<bool>* stop = nullptr;
};

inline constexpr const char* kReadStopped = "reading stopped: shutting down";

struct BundleReadResult {
    std::optional<Bundle> bundle;
    lang::Diagnostics errors;  // bundle errors (no code) and rego_parse_errors
    bool ok() const { return bundle.has_value(); }
    std::string error_text() const;  // every error, one per line
};

// A directory or a .tar.gz file (by content: gzip magic), named by `path`.
BundleReadResult read_bundle(const std::string& path, const BundleReadOptions& options = {});
// Archive bytes (a download); `name` is the bundle's name for modules and errors.
BundleReadResult read_bundle_archive(std::string_view bytes, const std::string& name,
                                     const BundleReadOptions& options = {});
// Files already unpacked. `signature_prefix` is prepended to file names when
// checking signatures (OPA names a directory bundle's files by the directory given).
BundleReadResult read_bundle_files(std::vector<ArchiveFile> files, const std::string& name,
                                   const std::string& signature_prefix, const BundleReadOptions& options);

// The package path of a Rego ref text "data.a.b" -> "a/b" (tools).
std::string package_text_of(const std::string& package_path);

}  // namespace gavel::engine::bundle
