#pragma once
// How deep a client may reach into the data tree. Every API that takes a path
// (/v1/data/<path>, /validate/<package>, JSON Patch pointers below a base)
// refuses one with more than kMaxPathSegments segments with a 400, and every
// walk along a path is a loop, not a recursion. A document placed in the tree
// nests at most kMaxDataDepth deep: its path plus what a JSON body may nest
// (runtime::Limits::max_depth), so that the recursive parts of the engine
// (comparison, serialisation, evaluation) stay far from any stack's end.

#include <cstddef>

#include "runtime/limits.hpp"

namespace gavel::webhook {

// Kubernetes paths are 4 or 5 segments (kubernetes/<resource>/<namespace>/<name>).
inline constexpr std::size_t kMaxPathSegments = 512;
inline constexpr std::size_t kMaxDataDepth = kMaxPathSegments + runtime::kDefaultLimits.max_depth;

}  // namespace gavel::webhook
