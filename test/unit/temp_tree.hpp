#pragma once
// Test fixtures for code that reads the filesystem: a temporary directory tree,
// and a file descriptor limit that makes the next open fail with EMFILE.

#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gavel::test {

// A fresh directory below the system temp dir, removed again at scope exit.
struct TempTree {
    std::filesystem::path root;
    TempTree() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "gavel_tree_XXXXXX").string();
        REQUIRE(mkdtemp(tmpl.data()) != nullptr);
        root = tmpl;
    }
    ~TempTree() {
        std::error_code ec;
        std::filesystem::remove_all(root, ec);
    }
    TempTree(const TempTree&) = delete;
    TempTree& operator=(const TempTree&) = delete;
    std::string path(const std::string& rel) const { return (root / rel).lexically_normal().generic_string(); }
    void write(const std::string& rel, const std::string& text) const {
        std::filesystem::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << text;
    }
};

// While it lives, the process cannot open another file (the soft RLIMIT_NOFILE
// is the lowest free descriptor): what a server with too many connections meets.
struct FdLimit {
    rlimit saved{};
    FdLimit() {
        REQUIRE(getrlimit(RLIMIT_NOFILE, &saved) == 0);
        int lowest_free = dup(0);
        REQUIRE(lowest_free >= 0);
        close(lowest_free);
        rlimit tight = saved;
        tight.rlim_cur = static_cast<rlim_t>(lowest_free);
        REQUIRE(setrlimit(RLIMIT_NOFILE, &tight) == 0);
    }
    ~FdLimit() { setrlimit(RLIMIT_NOFILE, &saved); }
    FdLimit(const FdLimit&) = delete;
    FdLimit& operator=(const FdLimit&) = delete;
};

}  // namespace gavel::test
