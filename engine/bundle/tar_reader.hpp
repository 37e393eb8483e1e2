#pragma once
// Reading a .tar.gz bundle archive: the regular files it holds, by name.
//
// Understands ustar (with its name prefix), GNU long names ('L') and PAX
// extended headers ('x' path and size; 'g' is ignored), which covers what Go's
// archive/tar (OPA's `opa build`), GNU tar and bsdtar write. Directory
// entries are skipped. Everything else is refused with an error naming the
// entry, as are names that could escape the bundle: symbolic and hard links,
// devices, FIFOs, names with a ".." element, empty names, duplicates, a
// header with a wrong checksum, an entry cut short, more data than the limits
// allow. A leading "/" or "./" is accepted and dropped (OPA writes "/data.json").
// Memory follows what is inflated, never what a header announces.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::engine::bundle {

// Every size is checked against the limits as the entry's header announces it,
// before any of it is inflated: a gzip bomb costs its header, not its expansion.
struct ArchiveLimits {
    // Per file: OPA's size_limit_bytes (bundle.DefaultSizeLimitBytes, 1 GiB).
    std::uint64_t max_file_bytes = std::uint64_t(1) << 30;
    // Everything the archive unpacks to, entries read or skipped alike.
    std::uint64_t max_total_bytes = std::uint64_t(1) << 30;
    std::size_t max_entries = 100000;
};

struct ArchiveFile {
    std::string path;   // '/'-separated, relative to the bundle root, no leading '/'
    std::string bytes;  // empty when not kept
    bool kept = true;
    std::string sha256;  // hex, for a file read but not kept (EntryAction::Digest)
};

// What the caller wants of a file, decided from its path and announced size before
// any of it is inflated: its bytes, only their SHA-256 (a file the caller does not
// use but may have to verify), or nothing; or an error that ends the read.
enum class EntryAction : std::uint8_t { Keep, Digest, Skip };
struct EntryDecision {
    EntryAction action = EntryAction::Keep;
    std::string error;  // not empty: the read fails with this text, as it is
};
using EntryPolicy = std::function<EntryDecision(const std::string& path, std::uint64_t size)>;

struct ArchiveReadResult {
    std::vector<ArchiveFile> files;  // in archive order
    std::string error;               // empty on success
    bool ok() const { return error.empty(); }
};

// Reads a gzip-compressed tar archive held in memory. Without a policy every file is kept.
ArchiveReadResult read_tar_gz(std::string_view compressed, const ArchiveLimits& limits = {},
                              const EntryPolicy& policy = {});

// OPA's text for a file over size_limit_bytes.
std::string file_size_limit_error(std::string_view name, std::uint64_t size, std::uint64_t limit);
// gavel's for an archive (or directory) unpacking to more than max_total_bytes.
std::string total_size_limit_error(std::uint64_t limit);

// Cleans an entry name to a bundle-relative path; false (and `error`) for
// names that may not appear in a bundle.
bool clean_entry_name(std::string_view name, std::string& out, std::string& error);

}  // namespace gavel::engine::bundle
