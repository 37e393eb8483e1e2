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

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::engine::bundle {

struct ArchiveLimits {
    std::uint64_t max_file_bytes = std::uint64_t(1) << 30;   // per entry: OPA's default size_limit_bytes (1 GiB)
    std::uint64_t max_total_bytes = std::uint64_t(1) << 30;  // all entries together, unpacked
    std::size_t max_entries = 100000;
};

struct ArchiveFile {
    std::string path;   // '/'-separated, relative to the bundle root, no leading '/'
    std::string bytes;
};

struct ArchiveReadResult {
    std::vector<ArchiveFile> files;  // in archive order
    std::string error;               // empty on success
    bool ok() const { return error.empty(); }
};

// Reads a gzip-compressed tar archive held in memory.
ArchiveReadResult read_tar_gz(std::string_view compressed, const ArchiveLimits& limits = {});

// Cleans an entry name to a bundle-relative path; false (and `error`) for
// names that may not appear in a bundle.
bool clean_entry_name(std::string_view name, std::string& out, std::string& error);

}  // namespace gavel::engine::bundle
