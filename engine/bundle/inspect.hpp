#pragma once
// What `gavel inspect` shows of a bundle, in the shape of OPA's
// internal/bundle/inspect.Info: the manifest, the signatures config, the
// namespaces (package or data path -> the files defining it) and, on request,
// the METADATA annotations as OPA's AnnotationsRef list.

#include "engine/bundle/bundle.hpp"
#include "runtime/value.hpp"

namespace gavel::engine::bundle {

// {"manifest": ..., "signatures_config": {...}, "namespaces": {...}, "annotations": [...]}
runtime::Value inspect_bundle(const Bundle& bundle, bool annotations);

}  // namespace gavel::engine::bundle
