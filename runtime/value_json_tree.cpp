#include "runtime/value_json_tree.hpp"

#include <string>

#include "runtime/json.hpp"

namespace gavel::runtime {

lang::JsonTree to_json_tree(const Value& v) {
    lang::JsonTree out;
    using K = lang::JsonTree::Kind;
    if (v.is_null()) return out;
    if (v.is_bool()) {
        out.kind = K::Boolean;
        out.boolean = v.as_bool();
    } else if (v.is_number()) {
        out.kind = K::Number;
        out.text = to_json(v);
    } else if (v.is_string()) {
        out.kind = K::String;
        out.text = std::string(v.as_string());
    } else if (v.is_array() || v.is_set()) {
        out.kind = K::Array;
        for (const auto& e : v.is_array() ? v.array_elements() : v.set_elements()) out.items.push_back(to_json_tree(e));
    } else if (v.is_object()) {
        out.kind = K::Object;
        for (const auto& e : v.object_entries())
            out.members.emplace_back(e.key.is_string() ? std::string(e.key.as_string()) : to_json(e.key),
                                     to_json_tree(e.value));
    }
    return out;
}

}  // namespace gavel::runtime
