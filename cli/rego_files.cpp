#include "cli/rego_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "engine/bundle_manifest.hpp"
#include "engine/loader.hpp"

namespace gavel::cli {

namespace fs = std::filesystem;

FileList find_rego_files(const std::vector<std::string>& paths) {
    FileList out;
    for (const auto& path : paths) {
        std::error_code ec;
        auto status = fs::status(path, ec);
        if (ec || !fs::exists(status)) {
            out.errors.push_back(path + ": no such file or directory");
            continue;
        }
        if (fs::is_regular_file(status)) {
            out.files.push_back(path);
            continue;
        }
        for (fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
             !ec && it != end; it.increment(ec)) {
            if (!it->is_regular_file() || it->path().extension() != ".rego") continue;
            std::string file = it->path().string();
            lang::Diagnostics manifest_errors;
            if (auto m = engine::find_bundle_manifest(file, path, manifest_errors))
                if (auto v0 = m->v0_compatible_for(file)) out.v0_compatible[file] = *v0;
            for (const auto& d : manifest_errors) out.errors.push_back(engine::describe(d));
            out.files.push_back(std::move(file));
        }
        if (ec) out.errors.push_back(path + ": " + ec.message());
    }
    std::sort(out.files.begin(), out.files.end());
    out.files.erase(std::unique(out.files.begin(), out.files.end()), out.files.end());
    std::sort(out.errors.begin(), out.errors.end());  // a bad manifest is met once per file below it
    out.errors.erase(std::unique(out.errors.begin(), out.errors.end()), out.errors.end());
    return out;
}

bool read_file(const std::string& path, std::string& out, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open file";
        return false;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) {
        error = path + ": read error";
        return false;
    }
    out = buffer.str();
    return true;
}

}  // namespace gavel::cli
