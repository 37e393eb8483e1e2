#include "engine/gatekeeper/object_files.hpp"

#include <algorithm>
#include <cstdio>

#include "engine/directory_walk.hpp"
#include "runtime/file_read.hpp"

namespace gavel::gatekeeper {

namespace {

bool object_file_name(std::string_view name) {
    auto ends_with = [&](std::string_view suffix) {
        return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
    };
    return ends_with(".yaml") || ends_with(".yml") || ends_with(".json");
}

void hash_bytes(std::uint64_t& h, std::string_view bytes) {
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;  // FNV-1a
    }
}

}  // namespace

ObjectFiles read_object_paths(const std::vector<std::string>& paths, runtime::NonRegular non_regular) {
    ObjectFiles out;
    std::uint64_t h = 1469598103934665603ull;
    // What could not be read goes into the hash too (marked apart from content): a
    // failed reading must never pass for the content it failed to read.
    auto unreadable = [&](const std::string& path, const std::string& message) {
        lang::Diagnostic d;  // the message names the path: "open DIR: too many open files"
        d.file = path;
        d.message = message;
        out.errors.add(std::move(d));
        hash_bytes(h, std::string_view("\0unreadable\0", 12));
        hash_bytes(h, message);
    };
    engine::WalkOptions walk;
    walk.skip = engine::configmap_volume_internal;
    for (const auto& root : paths) {
        for (const auto& e : engine::walk_directory(root, walk)) {
            if (e.kind == engine::WalkEntry::Kind::Unreadable) {
                unreadable(e.path, e.message);
                continue;
            }
            if (e.kind == engine::WalkEntry::Kind::Cycle) {
                out.skipped_cycles.push_back(e.message);
                continue;
            }
            // A file named directly is read whatever its name; below a directory only object files.
            if (e.kind != engine::WalkEntry::Kind::File && !(e.depth == 0 && e.kind == engine::WalkEntry::Kind::Other))
                continue;
            if (e.depth > 0 && !object_file_name(e.path)) continue;
            out.newest_change_ns = std::max(out.newest_change_ns, e.changed_ns);
            runtime::FileRead read = runtime::read_whole_file(e.path, kMaxObjectFileBytes, non_regular);
            if (!read.ok) {
                unreadable(e.path, read.message);
                continue;
            }
            hash_bytes(h, e.path);
            hash_bytes(h, std::string_view("\0", 1));
            hash_bytes(h, read.text);
            auto objects = read_objects(read.text, e.path);
            if (!objects.ok()) {
                out.errors.add(*objects.error);
                continue;
            }
            for (auto& o : objects.objects) out.objects.push_back(std::move(o));
        }
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    out.content_hash = buf;
    return out;
}

}  // namespace gavel::gatekeeper
