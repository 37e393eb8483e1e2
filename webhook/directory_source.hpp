#pragma once
// Policies and data from directories, reloaded when their content changes.
//
// `.rego` files are policies (named by their path); `.json`, `.yaml`, `.yml`
// files are data placed at their directory's path below the root, as OPA's
// loader does. Entries whose names start with ".." are skipped: a Kubernetes
// ConfigMap volume keeps the real files in "..data" / "..<timestamp>" and
// links them, and walking both would load every policy twice.
//
// poll() hashes the content (SHA-256 over names and bytes); when it differs
// from the last loaded content, the whole set is compiled and swapped in one
// step (PolicyStore::replace_directory_content). A broken file keeps the last
// good program, is logged with file:line:col and counted as a failed reload.

#include <memory>
#include <string>
#include <vector>

#include "lang/diagnostics.hpp"
#include "webhook/metrics.hpp"
#include "webhook/policy_store.hpp"

namespace gavel::webhook {

class DirectorySource {
public:
    DirectorySource(std::vector<std::string> dirs, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics);

    enum class Poll { Unchanged, Reloaded, Failed };
    // Loads when the content changed (or, `force`d as on SIGHUP, whatever it is). Failed,
    // with `errors`, when the new content does not load or compile (the previous program
    // stays); the same broken content is reported once, unless forced.
    Poll poll(lang::Diagnostics& errors, bool force = false);

    const std::string& loaded_hash() const { return loaded_hash_; }

private:
    struct FileEntry {
        std::string path;     // as the policy is named, and for errors
        std::string relative; // below its root, '/'-separated
        std::string text;
    };
    bool read_all(std::vector<FileEntry>& files, std::string& hash, lang::Diagnostics& errors) const;

    std::vector<std::string> dirs_;
    std::shared_ptr<PolicyStore> store_;
    std::shared_ptr<Metrics> metrics_;
    std::string loaded_hash_;
    std::string failed_hash_;  // a broken content is reported once, not every poll
};

}  // namespace gavel::webhook
