// The one directory walk (engine/directory_walk.hpp): order, links followed,
// cycles skipped by (device, inode), and every error reported, never an empty
// directory in its place.
#include "engine/directory_walk.hpp"
#include "engine/loader.hpp"
#include "test/unit/temp_tree.hpp"

#include <doctest/doctest.h>

#include <cerrno>
#include <filesystem>
#include <string>

using namespace gavel::engine;
using gavel::test::FdLimit;
using gavel::test::TempTree;
namespace fs = std::filesystem;

namespace {

// "kind relative" per entry, in walk order.
std::string listing(const std::vector<WalkEntry>& entries) {
    std::string out;
    for (const auto& e : entries) {
        switch (e.kind) {
            case WalkEntry::Kind::Directory: out += "dir "; break;
            case WalkEntry::Kind::File: out += "file "; break;
            case WalkEntry::Kind::Other: out += "other "; break;
            case WalkEntry::Kind::Unreadable: out += "unreadable "; break;
            case WalkEntry::Kind::Cycle: out += "cycle "; break;
        }
        out += (e.relative.empty() ? "." : e.relative) + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("directory walk: depth first, names in byte order, directories before their entries") {
    TempTree t;
    t.write("b.rego", "");
    t.write("a/z.json", "{}");
    t.write("a/b/c.yaml", "");
    t.write("B.txt", "");
    auto entries = walk_directory(t.root.string());
    CHECK(listing(entries) == "dir .\nfile B.txt\ndir a\ndir a/b\nfile a/b/c.yaml\nfile a/z.json\nfile b.rego\n");
    CHECK(entries[0].path == t.root.string());
    CHECK(entries[4].path == t.path("a/b/c.yaml"));
    CHECK(entries[4].depth == 3);
    CHECK(entries[4].changed_ns > 0);
}

TEST_CASE("directory walk: a root that is a file is the only entry; a missing one is unreadable") {
    TempTree t;
    t.write("p.rego", "package p\n");
    auto file = walk_directory(t.path("p.rego"));
    REQUIRE(file.size() == 1);
    CHECK(file[0].kind == WalkEntry::Kind::File);
    CHECK(file[0].depth == 0);
    auto missing = walk_directory(t.path("nope"));
    REQUIRE(missing.size() == 1);
    CHECK(missing[0].kind == WalkEntry::Kind::Unreadable);
    CHECK(missing[0].error == ENOENT);
    CHECK(missing[0].message == "stat " + t.path("nope") + ": no such file or directory");
}

TEST_CASE("directory walk: links are followed; a link back to a directory being walked is a cycle, not entered") {
    TempTree t;
    t.write("p/a.rego", "");
    t.write("shared/s.json", "{}");
    fs::create_directory_symlink(t.path("p"), t.path("p/self"));
    fs::create_directory_symlink(t.root, t.path("p/up"));
    fs::create_directory_symlink(t.path("shared"), t.path("p/one"));
    fs::create_directory_symlink(t.path("shared"), t.path("p/two"));
    auto entries = walk_directory(t.path("p"));
    // `up` leads to the parent, which is not being walked: it is walked, and its `p` is the cycle.
    CHECK(listing(entries) ==
          "dir .\nfile a.rego\ndir one\nfile one/s.json\ncycle self\ndir two\nfile two/s.json\n"
          "dir up\ncycle up/p\ndir up/shared\nfile up/shared/s.json\n");
    CHECK(entries[4].message ==
          t.path("p/self") + ": directory cycle: leads back to " + t.path("p") + ", not walked again");
}

TEST_CASE("directory walk: many links back to the root end quickly") {
    // Before, a walk bounded only by depth went through 2^depth paths here and never ended.
    TempTree t;
    t.write("d/x.rego", "");
    for (const char* name : {"l1", "l2", "l3", "l4"})
        fs::create_directory_symlink(t.path("d"), t.path("d/" + std::string(name)));
    auto entries = walk_directory(t.path("d"));
    CHECK(listing(entries) == "dir .\ncycle l1\ncycle l2\ncycle l3\ncycle l4\nfile x.rego\n");
}

TEST_CASE("directory walk: what cannot be examined or listed is unreadable, with the path and the error") {
    TempTree t;
    t.write("d/a.rego", "");
    fs::create_symlink(t.path("d/gone.rego"), t.path("d/dangling.rego"));
    auto entries = walk_directory(t.path("d"));
    CHECK(listing(entries) == "dir .\nfile a.rego\nunreadable dangling.rego\n");
    CHECK(entries[2].message == "stat " + t.path("d/dangling.rego") + ": no such file or directory");

    // Out of file descriptors: the listing fails, and says so, instead of looking empty.
    std::vector<WalkEntry> starved;
    {
        FdLimit limit;
        starved = walk_directory(t.path("d"));
    }
    CHECK(listing(starved) == "dir .\nunreadable .\n");
    CHECK(starved[1].error == EMFILE);
    CHECK(starved[1].message == "open " + t.path("d") + ": too many open files");
}

TEST_CASE("directory walk: skipped names are neither examined nor entered") {
    TempTree t;
    t.write("..data/a.rego", "");
    t.write("keep/b.rego", "");
    fs::create_symlink(t.path("missing"), t.path("..dangling"));
    WalkOptions options;
    options.skip = configmap_volume_internal;
    CHECK(listing(walk_directory(t.root.string(), options)) == "dir .\ndir keep\nfile keep/b.rego\n");
}

TEST_CASE("loader: a directory it cannot list is an error, not an empty directory") {
    TempTree t;
    t.write("p/a.rego", "package a\n");
    LoadResult r;
    {
        FdLimit limit;
        r = load_paths({t.path("p")});
    }
    REQUIRE(r.errors.size() == 1);
    CHECK(describe(*r.errors.begin()) == "open " + t.path("p") + ": too many open files");
}
