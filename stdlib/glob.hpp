// glob.match and glob.quote_meta (gobwas/glob semantics, compiled to RE2),
// and regex.globs_match (whether two simple regex-like globs intersect, as
// yashtewari/glob-intersection decides it).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "stdlib/registry.hpp"

namespace gavel::stdlib {

void register_glob(Registry& r);

// gobwas/glob's Compile(pattern, separators...).Match(text): also what OPA matches a bundle
// manifest's file_rego_versions keys with (no separators: `*` crosses '/').
struct GlobMatch {
    bool matched = false;
    std::string error;  // the pattern does not compile (gobwas's message)
};
GlobMatch gobwas_glob_match(std::string_view pattern, std::span<const char32_t> separators, std::string_view text);

}  // namespace gavel::stdlib
