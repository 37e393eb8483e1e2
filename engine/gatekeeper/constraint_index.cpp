#include "engine/gatekeeper/constraint_index.hpp"

#include <algorithm>
#include <set>

namespace gavel::gatekeeper {

namespace {

// A list of names as index keys: "*" when it holds anything (empty, or "*" in it).
std::set<std::string> keys_of(const std::vector<std::string>& names) {
    if (names.empty() || std::find(names.begin(), names.end(), "*") != names.end()) return {"*"};
    return {names.begin(), names.end()};
}

bool has_glob(const std::string& pattern) { return pattern.find('*') != std::string::npos; }

}  // namespace

void ConstraintIndex::add(std::uint32_t id, const Match& match) {
    std::set<std::pair<std::string, std::string>> pairs;
    if (match.kinds.empty()) pairs.emplace("*", "*");
    for (const auto& entry : match.kinds)
        for (const auto& group : keys_of(entry.api_groups))
            for (const auto& kind : keys_of(entry.kinds)) pairs.emplace(group, kind);
    bool exact_namespaces =
        !match.namespaces.empty() && std::none_of(match.namespaces.begin(), match.namespaces.end(), has_glob);
    std::set<std::string> namespaces(match.namespaces.begin(), match.namespaces.end());
    for (const auto& key : pairs) {
        Bucket& bucket = buckets_[key.first][key.second];
        if (!exact_namespaces) {
            bucket.any_namespace.push_back(id);
            continue;
        }
        for (const auto& ns : namespaces) bucket.by_namespace[ns].push_back(id);
        by_namespace_ = true;
    }
}

void ConstraintIndex::candidates(std::string_view group, std::string_view kind,
                                 std::optional<std::string_view> namespace_name, Ids& out) const {
    for (std::string_view g : {group, std::string_view("*")}) {
        auto by_kind = buckets_.find(g);
        if (by_kind == buckets_.end()) continue;
        for (std::string_view k : {kind, std::string_view("*")}) {
            auto it = by_kind->second.find(k);
            if (it == by_kind->second.end()) continue;
            const Bucket& bucket = it->second;
            out.insert(out.end(), bucket.any_namespace.begin(), bucket.any_namespace.end());
            if (!namespace_name) {
                for (const auto& [ns, ids] : bucket.by_namespace) out.insert(out.end(), ids.begin(), ids.end());
            } else if (auto n = bucket.by_namespace.find(*namespace_name); n != bucket.by_namespace.end()) {
                out.insert(out.end(), n->second.begin(), n->second.end());
            }
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
}

}  // namespace gavel::gatekeeper
