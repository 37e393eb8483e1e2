#pragma once
// `--capabilities FILE`: the builtins an OPA capabilities.json allows (the
// output of `gavel capabilities` or `opa capabilities`, perhaps trimmed to pin
// policies to what an older engine has).

#include <optional>
#include <set>
#include <string>

namespace gavel::cli {

// The names under "builtins", or nothing with `error` set (unreadable file,
// not JSON, no "builtins" array, an entry without a name).
std::optional<std::set<std::string>> read_capabilities_builtins(const std::string& path, std::string& error);

}  // namespace gavel::cli
