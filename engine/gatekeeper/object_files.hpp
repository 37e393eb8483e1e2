#pragma once
// Gatekeeper objects from files and directories: every .yaml, .yml and .json
// file below the paths (sorted; entries starting with ".." skipped, as
// Kubernetes ConfigMap volumes link their files from "..data"), each read as
// gator reads object files. The content hash tells a reload whether anything changed.
//
// Directories are walked with engine/directory_walk.hpp: a directory or file
// that cannot be read is an error (never an empty directory), and a link
// cycle is skipped and named in skipped_cycles.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/file_read.hpp"
#include "engine/gatekeeper/kube_object.hpp"

namespace gavel::gatekeeper {

struct ObjectFiles {
    std::vector<SourcedObject> objects;
    lang::Diagnostics errors;
    std::string content_hash;                 // over file names and bytes (and what could not be read)
    std::vector<std::string> skipped_cycles;  // "LINK: directory cycle: ..." for each cycle not walked
    std::int64_t newest_change_ns = 0;        // the newest st_ctim of the files read: how long they have been still
};

// Each file at most kMaxObjectFileBytes. A FIFO or device named directly is read
// (`gavel audit --objects <(kubectl get ...)`) unless refused, as the server does:
// a reload must never wait on a FIFO.
ObjectFiles read_object_paths(const std::vector<std::string>& paths,
                              runtime::NonRegular non_regular = runtime::NonRegular::Read);

}  // namespace gavel::gatekeeper
