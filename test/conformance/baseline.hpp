// The recorded baseline: the ids ("v1/folder/file.yaml#index") of cases known
// to pass, one per line, sorted bytewise. It may only grow.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>

namespace gavel::conformance {

using Baseline = std::set<std::string>;

// Reads a baseline file: one id per line; blank lines and lines starting with
// '#' are ignored, surrounding whitespace trimmed. nullopt (with `error`) when
// the file cannot be read. An empty file is an empty baseline.
std::optional<Baseline> read_baseline(const std::filesystem::path& file, std::string& error);

// Writes the ids sorted, one per line (atomically: temp file, then rename).
bool write_baseline(const std::filesystem::path& file, const Baseline& ids, std::string& error);

}  // namespace gavel::conformance
