#include "cli/rego_files.hpp"

#include <algorithm>
#include <filesystem>
#include <cerrno>

#include "engine/bundle_manifest.hpp"
#include "engine/directory_walk.hpp"
#include "engine/loader.hpp"

namespace gavel::cli {

namespace fs = std::filesystem;

FileList find_rego_files(const std::vector<std::string>& paths) {
    FileList out;
    for (const auto& path : paths) {
        // The walk follows links as the loader does, never loops, and reports what it cannot read.
        for (const auto& e : engine::walk_directory(path)) {
            using Kind = engine::WalkEntry::Kind;
            if (e.kind == Kind::Unreadable) {
                out.errors.push_back(e.depth == 0 && e.error == ENOENT ? path + ": no such file or directory"
                                                                       : e.message);
                continue;
            }
            if (e.kind == Kind::Cycle) {
                out.errors.push_back(e.message);
                continue;
            }
            if (e.depth == 0 && e.kind != Kind::Directory) {  // a file named directly, whatever its name
                out.files.push_back(path);
                continue;
            }
            if (e.kind != Kind::File || fs::path(e.path).extension() != ".rego") continue;
            lang::Diagnostics manifest_errors;
            if (auto m = engine::find_bundle_manifest(e.path, path, manifest_errors))
                if (auto v0 = m->v0_compatible_for(e.path)) out.v0_compatible[e.path] = *v0;
            for (const auto& d : manifest_errors) out.errors.push_back(engine::describe(d));
            out.files.push_back(e.path);
        }
    }
    std::sort(out.files.begin(), out.files.end());
    out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
    std::sort(out.errors.begin(), out.errors.end());  // a bad manifest is met once per file below it
    out.errors.erase(std::unique(out.errors.begin(), out.errors.end()), out.errors.end());
    return out;
}

}  // namespace gavel::cli
