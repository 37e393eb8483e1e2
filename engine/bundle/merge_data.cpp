#include "engine/bundle/merge_data.hpp"

namespace gavel::engine::bundle {

// Recursion follows the data's nesting, which the JSON and YAML readers bound.
bool merge_data(const runtime::Value& a, const runtime::Value& b, runtime::Value& out) {
    if (!a.is_object() || !b.is_object()) return false;
    runtime::ObjectBuilder builder;
    for (const auto& e : a.object_entries()) {
        const runtime::Value* other = b.find(e.key);
        if (!other) {
            builder.insert(e.key, e.value);
            continue;
        }
        runtime::Value merged;
        if (!merge_data(e.value, *other, merged)) return false;
        builder.insert(e.key, merged);
    }
    for (const auto& e : b.object_entries())
        if (!a.find(e.key)) builder.insert(e.key, e.value);
    out = builder.build();
    return true;
}

}  // namespace gavel::engine::bundle
