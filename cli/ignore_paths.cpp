#include "cli/ignore_paths.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

#include "engine/directory_walk.hpp"

namespace gavel::cli {

namespace fs = std::filesystem;

namespace {

bool ignored(const std::string& name, const std::vector<std::string>& patterns) {
    for (const auto& p : patterns)
        if (fnmatch(p.c_str(), name.c_str(), 0) == 0) return true;
    return false;
}

bool is_data_file(const fs::path& p) {
    auto ext = p.extension().string();
    return ext == ".json" || ext == ".yaml" || ext == ".yml";
}

}  // namespace

std::vector<std::string> without_ignored(const std::vector<std::string>& paths,
                                         const std::vector<std::string>& ignore) {
    if (ignore.empty()) return paths;
    std::vector<std::string> out;
    for (const auto& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            if (!ignored(fs::path(path).filename().string(), ignore)) out.push_back(path);
            continue;
        }
        std::vector<std::string> found;
        engine::WalkOptions walk;
        walk.skip = [&](std::string_view name) { return ignored(std::string(name), ignore); };
        for (const auto& e : engine::walk_directory(path, walk)) {
            using Kind = engine::WalkEntry::Kind;
            // What the walk could not read, or a cycle, is handed on: the loader reports it.
            if (e.kind == Kind::Unreadable || e.kind == Kind::Cycle) {
                found.push_back(e.path);
                continue;
            }
            if (e.kind != Kind::File) continue;
            const fs::path p = e.path;
            if (p.extension() == ".rego") {
                found.push_back(e.path);
            } else if (is_data_file(p)) {
                // The loader's prefix syntax keeps the data where the directory walk puts it.
                auto slash = e.relative.rfind('/');
                std::string prefix = slash == std::string::npos ? "" : e.relative.substr(0, slash);
                std::replace(prefix.begin(), prefix.end(), '/', '.');
                found.push_back(prefix.empty() ? e.path : prefix + ":" + e.path);
            }
        }
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    }
    return out;
}

}  // namespace gavel::cli
