#include "engine/directory_walk.hpp"
#include "runtime/file_read.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <system_error>
#include <utility>

namespace gavel::engine {

namespace {

std::int64_t nanoseconds(const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; }

// filepath.Join(dir, name): joined and lexically cleaned.
std::string join_clean(const std::string& dir, const std::string& name) {
    return (std::filesystem::path(dir) / name).lexically_normal().generic_string();
}

// The names in `dir` (without "." and ".."), or the errno of the failed open or read
// with the operation Go would name.
int list_names(const std::string& dir, std::vector<std::string>& names, const char*& operation) {
    operation = "open";
    DIR* d = ::opendir(dir.c_str());
    if (!d) return errno;
    operation = "readdirent";
    int failure = 0;
    while (true) {
        errno = 0;
        dirent* e = ::readdir(d);
        if (!e) {
            failure = errno;
            break;
        }
        std::string_view name = e->d_name;
        if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    return failure;
}

class Walker {
public:
    Walker(const WalkOptions& options, std::vector<WalkEntry>& out) : options_(options), out_(out) {}

    void visit(const std::string& path, const std::string& relative, int depth) {
        WalkEntry entry;
        entry.path = path;
        entry.relative = relative;
        entry.depth = depth;
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) return unreadable(std::move(entry), "stat", errno);
        entry.modified_ns = nanoseconds(st.st_mtim);
        entry.changed_ns = nanoseconds(st.st_ctim);
        if (!S_ISDIR(st.st_mode)) {
            entry.kind = S_ISREG(st.st_mode) ? WalkEntry::Kind::File : WalkEntry::Kind::Other;
            out_.push_back(std::move(entry));
            return;
        }
        const DirectoryId id{st.st_dev, st.st_ino};
        for (const auto& [walking_id, walking_path] : walking_) {
            if (walking_id != id) continue;
            entry.kind = WalkEntry::Kind::Cycle;
            entry.message = path + ": directory cycle: leads back to " + walking_path + ", not walked again";
            out_.push_back(std::move(entry));
            return;
        }
        entry.kind = WalkEntry::Kind::Directory;
        out_.push_back(entry);

        std::vector<std::string> names;
        const char* operation = "";
        if (int failure = list_names(path, names, operation)) return unreadable(std::move(entry), operation, failure);
        std::sort(names.begin(), names.end());
        walking_.emplace_back(id, path);
        for (const auto& name : names) {
            if (options_.skip && options_.skip(name)) continue;
            visit(join_clean(path, name), relative.empty() ? name : relative + "/" + name, depth + 1);
        }
        walking_.pop_back();
    }

private:
    using DirectoryId = std::pair<dev_t, ino_t>;

    void unreadable(WalkEntry entry, const char* operation, int error) {
        entry.kind = WalkEntry::Kind::Unreadable;
        entry.error = error;
        entry.message = std::string(operation) + " " + entry.path + ": " + runtime::go_errno_text(error);
        out_.push_back(std::move(entry));
    }

    const WalkOptions& options_;
    std::vector<WalkEntry>& out_;
    std::vector<std::pair<DirectoryId, std::string>> walking_;  // the directories being walked, outermost first
};

}  // namespace

std::vector<WalkEntry> walk_directory(const std::string& root, const WalkOptions& options) {
    std::vector<WalkEntry> out;
    Walker(options, out).visit(root, "", 0);
    return out;
}

}  // namespace gavel::engine
