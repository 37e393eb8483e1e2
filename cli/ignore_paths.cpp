#include "cli/ignore_paths.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>

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

std::vector<std::string> without_ignored(const std::vector<std::string>& paths, const std::vector<std::string>& ignore) {
    if (ignore.empty()) return paths;
    std::vector<std::string> out;
    for (const auto& path : paths) {
        std::error_code ec;
        if (!fs::is_directory(path, ec)) {
            if (!ignored(fs::path(path).filename().string(), ignore)) out.push_back(path);
            continue;
        }
        std::vector<std::string> found;
        for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
            if (ignored(it->path().filename().string(), ignore)) {
                if (it->is_directory()) it.disable_recursion_pending();
                continue;
            }
            if (!it->is_regular_file()) continue;
            const fs::path& p = it->path();
            if (p.extension() == ".rego") {
                found.push_back(p.string());
            } else if (is_data_file(p)) {
                // The loader's prefix syntax keeps the data where the directory walk puts it.
                std::string prefix;
                for (const auto& part : fs::relative(p.parent_path(), path, ec)) {
                    if (part == ".") continue;
                    prefix += (prefix.empty() ? "" : ".") + part.string();
                }
                found.push_back(prefix.empty() ? p.string() : prefix + ":" + p.string());
            }
        }
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    }
    return out;
}

}  // namespace gavel::cli
