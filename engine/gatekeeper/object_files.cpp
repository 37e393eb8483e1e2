#include "engine/gatekeeper/object_files.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gavel::gatekeeper {

namespace fs = std::filesystem;

namespace {

bool object_file_name(const fs::path& p) {
    auto ext = p.extension().string();
    return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

void walk(const fs::path& dir, std::vector<fs::path>& out, int depth) {
    if (depth > 32) return;  // a link cycle
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (const auto& e : fs::directory_iterator(dir, ec)) entries.push_back(e);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.path() < b.path(); });
    for (const auto& e : entries) {
        if (e.path().filename().string().rfind("..", 0) == 0) continue;
        if (fs::is_directory(e.path(), ec)) walk(e.path(), out, depth + 1);
        else if (object_file_name(e.path())) out.push_back(e.path());
    }
}

void hash_bytes(std::uint64_t& h, std::string_view bytes) {
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;  // FNV-1a
    }
}

}  // namespace

ObjectFiles read_object_paths(const std::vector<std::string>& paths) {
    ObjectFiles out;
    std::vector<fs::path> files;
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) walk(p, files, 0);
        else if (fs::exists(p, ec)) files.emplace_back(p);
        else out.errors.add(file_error(p, 0, "no such file or directory"));
    }
    std::uint64_t h = 1469598103934665603ull;
    for (const auto& f : files) {
        std::string name = f.lexically_normal().string();
        std::ifstream in(f, std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        std::string text = ss.str();
        hash_bytes(h, name);
        hash_bytes(h, std::string_view("\0", 1));
        hash_bytes(h, text);
        if (text.size() > kMaxObjectFileBytes) {
            out.errors.add(file_error(name, 0, "file too large"));
            continue;
        }
        auto read = read_objects(text, name);
        if (!read.ok()) {
            out.errors.add(*read.error);
            continue;
        }
        for (auto& o : read.objects) out.objects.push_back(std::move(o));
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    out.content_hash = buf;
    return out;
}

}  // namespace gavel::gatekeeper
