#pragma once
// Finding policy files below the paths a user gives, as OPA does: files are
// taken as given, directories are walked; the result is sorted for stable output.

#include <map>
#include <string>
#include <vector>

namespace gavel::cli {

struct FileList {
    std::vector<std::string> files;
    std::vector<std::string> errors;  // paths that do not exist or cannot be read
    // The dialect a bundle manifest (`.manifest` at or below the path given)
    // sets for a file: true for v0. Files not listed: the command's dialect.
    std::map<std::string, bool> v0_compatible;
};

FileList find_rego_files(const std::vector<std::string>& paths);

}  // namespace gavel::cli
