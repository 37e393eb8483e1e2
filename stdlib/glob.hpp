// glob.match and glob.quote_meta (gobwas/glob semantics, compiled to RE2),
// and regex.globs_match (whether two simple regex-like globs intersect, as
// yashtewari/glob-intersection decides it).
#pragma once

#include "stdlib/registry.hpp"

namespace gavel::stdlib {

void register_glob(Registry& r);

}  // namespace gavel::stdlib
