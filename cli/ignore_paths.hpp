#pragma once
// `--ignore PATTERN` (eval, test), as OPA's: files and directories whose name
// matches a shell pattern are not loaded.

#include <string>
#include <vector>

namespace gavel::cli {

// The paths with ignored entries left out: unchanged without patterns; else
// the files below them that are kept (data files with the prefix that puts
// their content where walking the directory would have).
std::vector<std::string> without_ignored(const std::vector<std::string>& paths, const std::vector<std::string>& ignore);

}  // namespace gavel::cli
