#include "lang/json_tree.hpp"

namespace gavel::lang {

const JsonTree* JsonTree::find(std::string_view key) const {
    for (const auto& [k, v] : members)
        if (k == key) return &v;
    return nullptr;
}

void JsonTree::set(std::string key, JsonTree value) {
    for (auto& [k, v] : members)
        if (k == key) {
            v = std::move(value);
            return;
        }
    members.emplace_back(std::move(key), std::move(value));
}

}  // namespace gavel::lang
