#pragma once
// OPA's merge.InterfaceMaps, as bundles merge their data documents: objects
// merge key by key; two values meeting at one key where either is not an
// object are a conflict.

#include "runtime/value.hpp"

namespace gavel::engine::bundle {

// `out` = a merged with b; false on a conflict (`out` untouched then).
bool merge_data(const runtime::Value& a, const runtime::Value& b, runtime::Value& out);

}  // namespace gavel::engine::bundle
