#pragma once
// Finding policy files below the paths a user gives, as OPA does: files are
// taken as given, directories are walked; the result is sorted for stable output.

#include <string>
#include <vector>

namespace gavel::cli {

struct FileList {
    std::vector<std::string> files;
    std::vector<std::string> errors;  // paths that do not exist or cannot be read
};

FileList find_rego_files(const std::vector<std::string>& paths);

// The whole file, or an error message naming it.
bool read_file(const std::string& path, std::string& out, std::string& error);

}  // namespace gavel::cli
