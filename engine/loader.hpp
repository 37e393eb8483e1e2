#pragma once
// Loading policies and data from paths the way OPA's loader does for
// `opa eval -d PATH...` (and `opa test`, `opa run`):
//
//   * A path may be a file or a directory; directories are walked recursively,
//     entries in byte order of their names (Go's os.ReadDir), so the order of
//     everything (policies, merges, errors) is deterministic. Symbolic links
//     are followed (os.Stat); a directory cycle is an error naming the link
//     (OPA's walk fails too), never walked forever (engine/directory_walk.hpp).
//     Every directory that cannot be listed and every file that cannot be
//     read is an error, never an empty directory or file.
//   * `.rego` files are policies. A policy is named by its path: as given for a
//     file named directly, `<dir>/<name>` (lexically cleaned, like Go's
//     filepath.Join) for a file found by walking.
//   * `.json`, `.yaml` and `.yml` files are data. The *content* of a data file is
//     placed at its directory's path below the root that was given, whatever
//     the file's name: with `-d dir`, `dir/a/b/data.json` and `dir/a/b/x.yaml`
//     both land at `data.a.b`; a data file directly in `dir` (or named
//     directly) merges at the root of `data` and must then be an object
//     ("document must be of type object", as OPA says).
//   * Documents merge like OPA's merge.InterfaceMaps: objects merge key by key,
//     recursively; two values meeting at one key where either is not an object
//     is a conflict (even when they are equal). The error names both files.
//   * Other extensions are ignored while walking a directory. A file named
//     directly with another extension is tried as Rego, then JSON, then YAML
//     (OPA's loadFileForAnyType).
//   * `prefix.path:FILE-OR-DIR` (OPA's SplitPrefix) loads the content below
//     `data.prefix.path`.
//   * YAML data files: only the first document of a stream is used, as OPA
//     does (runtime/yaml.hpp, load_yaml_data).
//   * A directory holding a `.manifest` (engine/bundle_manifest.hpp) is a
//     bundle root, as in OPA: data below it is placed relative to it (so
//     `gavel test examples/` sees examples/x/a/data.json at data.a, exactly as
//     `gavel test examples/x` does), only files named data.json, data.yaml or
//     data.yml are data there (OPA's bundle rule: an AdmissionReview fixture
//     next to the policy is not data), and its rego_version /
//     file_rego_versions choose each module's dialect (PolicyFile::v0_compatible).
//
// Errors are values: everything that went wrong is collected (all files are
// tried) and returned as Diagnostics; nothing throws out of these functions.
// Data errors carry no error code (OPA prints them as a bare message, e.g.
// "x.json: merge error"); the message starts with the file's path and the
// Diagnostic's file/line/col point at the problem when it has a position.
// Policy syntax errors are rego_parse_error Diagnostics from the parser.

#include <cstdint>
#include <functional>
#include <string_view>
#include <optional>
#include <string>
#include <vector>

#include "lang/diagnostics.hpp"
#include "engine/engine.hpp"
#include "runtime/file_read.hpp"
#include "runtime/limits.hpp"
#include "runtime/value.hpp"

namespace gavel::engine {

struct LoadOptions {
    // Only used to recognise a directly named file of unknown extension as Rego
    // (policies are parsed by the Engine, with the Engine's options).
    bool v0_compatible = false;
    runtime::Limits limits =
        runtime::kDefaultLimits;  // for JSON and YAML data files; max_input_bytes bounds every file read
    // Names left out while walking directories (--ignore patterns, a ConfigMap
    // volume's "..data"): a directory left out is not entered.
    std::function<bool(std::string_view name)> skip;
    // A link cycle is an error (OPA's loader fails on one); off, it is left out
    // (the server skips it with a warning, engine/directory_walk.hpp).
    bool cycles_are_errors = true;
    // How files are read (default: runtime::read_whole_file, at most limits.max_input_bytes); the server hands over the
    // bytes it already read and saw hold still.
    std::function<runtime::FileRead(const std::string& path)> read_file;
};

struct PolicyFile {
    std::string file;  // the name the policy is known by (and errors show)
    std::string text;
    std::optional<bool> v0_compatible;  // set by a bundle manifest; unset: the engine's dialect
};

struct LoadResult {
    std::vector<PolicyFile> policies;                      // in load order
    runtime::Value data = runtime::Value::empty_object();  // all data documents, merged
    std::vector<std::string> data_files;                   // files that contributed data, in load order
    lang::Diagnostics errors;                              // empty on success
    bool ok() const { return errors.empty(); }
};

// The file or directory a load path names: without its `prefix:` and `file://`.
std::string load_path_without_prefix(const std::string& given);

// Reads and merges everything below `paths`. Policies are read, not parsed.
LoadResult load_paths(const std::vector<std::string>& paths, const LoadOptions& options = {});

// Adds loaded policies (Engine::add_policy) and data (Engine::add_data at the
// root) to `engine`. Returns every policy parse error and a data conflict with
// data already in the engine. (Inline, so that libgavel's loader object does
// not depend on the engine.)
inline lang::Diagnostics add_to_engine(Engine& engine, LoadResult loaded) {
    lang::Diagnostics out;
    for (auto& p : loaded.policies)
        out.append(engine.add_policy(p.file, std::move(p.text), Engine::PolicyOptions{p.v0_compatible}));
    if (loaded.data.size() > 0) {
        if (auto err = engine.add_data(loaded.data)) {
            lang::Diagnostic d;
            d.message = *err;
            out.add(std::move(d));
        }
    }
    return out;
}

// load_paths, then add_to_engine. When loading fails nothing is added and the
// load errors are returned.
inline lang::Diagnostics load_into(Engine& engine, const std::vector<std::string>& paths,
                                   const LoadOptions& options = {}) {
    LoadResult loaded = load_paths(paths, options);
    if (!loaded.ok()) return std::move(loaded.errors);
    return add_to_engine(engine, std::move(loaded));
}

// A loader error as text, OPA-style: "<code>: <message>" behind "<file>:<line>:"
// for diagnostics with a code, the bare message for data errors (which already
// name their file).
std::string describe(const lang::Diagnostic& d);

// Rego's notation for a data path: data.a.b, data["a-b"].c ...
std::string data_path_text(const std::vector<std::string>& path);

}  // namespace gavel::engine
