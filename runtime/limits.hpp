// Resource limits for turning untrusted bytes into Values (JSON, YAML).
//
// Defaults:
//   max_depth = 1000 nesting levels of arrays/objects. Kubernetes objects and
//     AdmissionReviews nest ~20 deep; 1000 leaves ample room for data files
//     while keeping the recursive builders far from any thread's stack limit
//     (server threads may run with small stacks). Go's encoding/json allows
//     10000; raise it per call if a data file really needs it.
//   max_input_bytes = 256 MiB per document/file. AdmissionReviews are bounded
//     by the API server (~3 MiB); the webhook should pass a tighter limit.
//   max_nodes = 10 million values per YAML stream: bounds alias expansion
//     ("billion laughs": a few bytes of anchors/aliases expanding
//     exponentially), since aliases are copied into the resulting Values.
// Exceeding a limit gives an error value naming the limit, never a crash.
#pragma once

#include <cstddef>

namespace gavel::runtime {

struct Limits {
    std::size_t max_depth = 1000;
    std::size_t max_input_bytes = std::size_t(256) << 20;
    std::size_t max_nodes = 10'000'000;
};

inline constexpr Limits kDefaultLimits{};

}  // namespace gavel::runtime
