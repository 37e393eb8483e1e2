#pragma once
// OPA's merge.InterfaceMaps, as bundles merge their data documents: objects
// merge key by key; two values meeting at one key where either is not an
// object are a conflict.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::engine::bundle {

// `out` = a merged with b; false on a conflict (`out` untouched then).
bool merge_data(const runtime::Value& a, const runtime::Value& b, runtime::Value& out);

// Many documents merged one after the other (a bundle's data files, a root each),
// as merge_data would, in time proportional to what they hold: merge_data rebuilds
// the whole tree for each document, quadratic in a bundle with thousands of files.
class DataTreeBuilder {
public:
    DataTreeBuilder();
    ~DataTreeBuilder();
    DataTreeBuilder(DataTreeBuilder&&) noexcept;
    DataTreeBuilder& operator=(DataTreeBuilder&&) noexcept;

    // Merges `value` in at `path` ({} for the root, where it must be an object).
    // false on a conflict; the tree is then partly merged, and should be dropped.
    bool insert(const std::vector<std::string>& path, const runtime::Value& value);
    runtime::Value build() const;

private:
    struct Node;
    std::unique_ptr<Node> root_;
};

}  // namespace gavel::engine::bundle
