#pragma once
// Gatekeeper objects from files and directories: every .yaml, .yml and .json
// file below the paths (sorted; entries starting with ".." skipped, as
// Kubernetes ConfigMap volumes link their files from "..data"), each read as
// gator reads object files. The content hash tells a reload whether anything changed.

#include <string>
#include <vector>

#include "engine/gatekeeper/kube_object.hpp"

namespace gavel::gatekeeper {

struct ObjectFiles {
    std::vector<SourcedObject> objects;
    lang::Diagnostics errors;
    std::string content_hash;  // over file names and bytes
};

ObjectFiles read_object_paths(const std::vector<std::string>& paths);

}  // namespace gavel::gatekeeper
