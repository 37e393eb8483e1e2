#pragma once
// Where an activated bundle's data goes in the whole data tree, as OPA's bundle
// store activates it: what lies below the roots the bundle owned (before and
// now) is erased, then the bundle's data below each of its roots is written
// there; everything else stays. One rebuild of the tree, each object on a
// root's path rebuilt once, however many roots (a manifest may list tens of
// thousands; replacing them one by one rebuilt the top object per root).

#include <optional>
#include <string>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::engine::bundle {

// The new tree, or nullopt and `error` ("data.a is not an object") when a root
// passes through a value that is not an object: the first such root of `roots`.
std::optional<runtime::Value> place_bundle_data(const runtime::Value& base,
                                                const std::vector<std::string>& erased_roots,
                                                const std::vector<std::string>& roots,
                                                const runtime::Value& bundle_data, std::string& error);

}  // namespace gavel::engine::bundle
