#pragma once
// Policies and data from files and directories, reloaded when their content changes.
//
// What is loaded, and where, is OPA's loader's (engine/loader.hpp, the one
// `gavel eval -d` uses): `.rego` files are policies named by their path; data
// files are placed at their directory's path below the root; `prefix:path`;
// bundle manifests. Entries whose names start with ".." are skipped: a
// Kubernetes ConfigMap volume keeps the real files in "..data" /
// "..<timestamp>" and links them, and walking both would load every policy
// twice; so are names matching the `ignore` patterns (OPA's --ignore).
//
// poll() hashes the content (SHA-256 over names and bytes); when it differs
// from the last loaded content, the whole set is compiled and swapped in one
// step (PolicyStore::replace_directory_content). A broken file keeps the last
// good program, is logged with file:line:col and counted as a failed reload.
//
// What a reload takes is read whole and holds still (webhook/settled_read.hpp):
// a file being rewritten in place is not loaded half-written. A directory that
// cannot be listed or a file that cannot be read (EMFILE, EACCES, a file gone
// mid-walk ...) fails the reload with the path and the error: an error never
// passes for an empty directory, which would unload the policies. A symbolic
// link cycle is skipped and logged once as a warning (engine/directory_walk.hpp).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lang/diagnostics.hpp"
#include "webhook/metrics.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/cycle_warnings.hpp"
#include "webhook/settled_read.hpp"

namespace gavel::webhook {

struct DirectorySourceOptions {
    std::vector<std::string> ignore;  // shell patterns of names to leave out (OPA's --ignore)
    bool v0_compatible = false;       // a directly named file of unknown extension is tried as v0 Rego
};

class DirectorySource {
public:
    using Options = DirectorySourceOptions;
    DirectorySource(std::vector<std::string> paths, std::shared_ptr<PolicyStore> store,
                    std::shared_ptr<Metrics> metrics, SettleTiming settle = {}, Options options = {});

    enum class Poll { Unchanged, Reloaded, Failed };
    // Loads when the content changed (or, `force`d as on SIGHUP, whatever it is). Failed,
    // with `errors`, when the new content cannot be read or does not load or compile (the
    // previous program stays); the same failure is reported once, unless forced. Unchanged
    // too while the content is still being written (the next poll tries again).
    Poll poll(lang::Diagnostics& errors, bool force = false);

    const std::string& loaded_hash() const { return loaded_hash_; }

private:
    struct FileEntry {
        std::string path;      // as the policy is named, and for errors
        std::string relative;  // below its root, '/'-separated
        std::string text;
    };
    // Everything below the directories, once.
    struct Reading {
        std::vector<FileEntry> files;
        lang::Diagnostics errors;         // what could not be read
        std::vector<std::string> cycles;  // links not followed, as the walk words them
        std::string hash;                 // names and bytes; marked apart when something could not be read
        std::int64_t newest_change_ns = 0;
    };
    Reading read_all() const;
    bool skipped(std::string_view name) const;

    std::vector<std::string> dirs_;
    Options options_;
    std::shared_ptr<PolicyStore> store_;
    std::shared_ptr<Metrics> metrics_;
    SettleTiming settle_;
    std::string loaded_hash_;
    std::string failed_hash_;  // a failure is reported once, not every poll
    CycleWarnings cycle_warnings_;
    bool waiting_logged_ = false;  // "still being written", once per episode
};

}  // namespace gavel::webhook
