#pragma once
// Walking a directory tree, for every reader of policy, data and object
// directories (the loader behind eval/test/build, gavel check, --ignore,
// test --watch, and the server's directory reloads and inotify watches).
//
// Entries come depth first, a directory before its entries, each directory's
// entries in byte order of their names (Go's os.ReadDir), so that everything
// built from a walk is deterministic. Symbolic links are followed (os.Stat, as
// OPA's loader does). Two guarantees:
//
//   * It never loops. A directory that leads back to one being walked (a link
//     to itself or to an ancestor, a bind-mount loop) is a Cycle entry and is
//     not entered. Directories are told apart by (device, inode), not by name.
//     A directory reached twice without a cycle (two links to one shared
//     directory) is walked at both places, as OPA does.
//   * It never hides an error. An entry that cannot be examined (a dangling
//     link, a file that vanished mid-walk), a directory that cannot be opened
//     or listed (EMFILE, EACCES ...) is an Unreadable entry naming the path and
//     the error, so that a failed listing can never be mistaken for an empty
//     directory.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::engine {

struct WalkEntry {
    enum class Kind {
        Directory,   // its entries follow
        File,        // a regular file
        Other,       // a FIFO, socket, device ...
        Unreadable,  // could not be examined, opened or listed: see `error` and `message`
        Cycle,       // a directory that leads back to one being walked: not entered
    };
    Kind kind = Kind::File;
    std::string path;      // the root as given, then joined with each name and lexically cleaned
    std::string relative;  // below the root, '/'-separated ("" for the root)
    int depth = 0;         // 0: the root
    int error = 0;         // errno, for Unreadable
    // Unreadable: the error in Go's wording ("open DIR: too many open files"), as OPA prints it.
    // Cycle: "LINK: directory cycle: leads back to DIR, not walked again".
    std::string message;
    std::int64_t modified_ns = 0;  // st_mtim (of the target, for a link)
    std::int64_t changed_ns = 0;   // st_ctim: also moves on a truncate, and cannot be set back by touch
};

struct WalkOptions {
    // Entries (below the root) whose name it accepts are left out, before they are
    // examined; a directory left out is not entered.
    std::function<bool(std::string_view name)> skip;
};

// The root and everything below it, in walk order. A root that is not a directory
// is the only entry.
std::vector<WalkEntry> walk_directory(const std::string& root, const WalkOptions& options = {});

// Names a Kubernetes ConfigMap or Secret volume keeps for itself ("..data",
// "..<timestamp>", linked from the visible names): walking them too would
// read every file twice. The server's readers skip them (WalkOptions::skip).
inline bool configmap_volume_internal(std::string_view name) { return name.substr(0, 2) == ".."; }

}  // namespace gavel::engine
