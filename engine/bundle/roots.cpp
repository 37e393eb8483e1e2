#include "engine/bundle/roots.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>

namespace gavel::engine::bundle {

namespace {

std::vector<std::string_view> segments(std::string_view path) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (true) {
        auto slash = path.find('/', start);
        out.push_back(path.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
        if (slash == std::string_view::npos) break;
        start = slash + 1;
    }
    return out;
}

bool root_contains(const std::vector<std::string_view>& root, const std::vector<std::string_view>& other) {
    if (root.size() == 1 && root[0].empty()) return true;
    if (root.size() > other.size()) return false;
    return std::equal(root.begin(), root.end(), other.begin());
}

// The key of a trie edge: the parent node's number, then the segment.
std::string edge_key(std::uint32_t parent, std::string_view segment) {
    std::string key(sizeof parent, '\0');
    std::memcpy(key.data(), &parent, sizeof parent);
    key.append(segment);
    return key;
}

std::string trim(std::string_view s) {
    while (!s.empty() && s.front() == '/') s.remove_prefix(1);
    while (!s.empty() && s.back() == '/') s.remove_suffix(1);
    return std::string(s);
}

}  // namespace

std::string go_string_list(const std::vector<std::string>& items) {
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += ' ';
        out += items[i];
    }
    return out + "]";
}

std::vector<std::string> path_parts(std::string_view path) {
    std::vector<std::string> out;
    if (path.empty()) return out;
    for (auto part : segments(path)) out.emplace_back(part);
    return out;
}

bool root_paths_overlap(std::string_view a, std::string_view b) {
    auto sa = segments(a), sb = segments(b);
    return root_contains(sa, sb) || root_contains(sb, sa);
}

bool root_paths_contain(const std::vector<std::string>& roots, std::string_view path) {
    auto p = segments(path);
    for (const auto& r : roots)
        if (root_contains(segments(r), p)) return true;
    return false;
}

RootTrie::RootTrie(std::vector<std::string> roots) : roots_(std::move(roots)), nodes_(1) {
    for (const auto& root : roots_) {
        if (root.empty()) {
            universal_ = true;
            continue;
        }
        std::uint32_t node = 0;
        ++nodes_[0].roots_below;
        for (auto segment : segments(root)) {
            auto [it, added] = edges_.try_emplace(edge_key(node, segment), static_cast<std::uint32_t>(nodes_.size()));
            if (added) nodes_.emplace_back();
            node = it->second;
            ++nodes_[node].roots_below;
        }
        nodes_[node].root = true;
    }
}

std::optional<std::uint32_t> RootTrie::child(std::uint32_t node, std::string_view segment) const {
    auto it = edges_.find(edge_key(node, segment));
    if (it == edges_.end()) return std::nullopt;
    return it->second;
}

RootTrie::Walk RootTrie::walk(std::string_view path) const {
    std::uint32_t node = 0;
    for (auto segment : segments(path)) {
        auto next = child(node, segment);
        if (!next) return {};
        node = *next;
        if (nodes_[node].root) return {true, node};
    }
    return {false, node};
}

bool RootTrie::contains(std::string_view path) const { return universal_ || walk(path).through_root; }

bool RootTrie::overlaps(std::string_view path) const {
    if (roots_.empty()) return false;
    if (universal_ || path.empty()) return true;  // "" contains every path
    auto w = walk(path);
    return w.through_root || (w.end && nodes_[*w.end].roots_below > 0);
}

bool RootTrie::begins_a_root(std::string_view segment) const { return child(0, segment).has_value(); }

std::optional<std::string> check_manifest_roots(const std::vector<std::string>& roots) {
    // OPA compares every pair (i < j) and reports the first overlap. The same pair, without
    // the pairs: walk i from the last root to the first with the roots after it in a trie
    // whose nodes keep the smallest index ending there (min_here) and there or below
    // (min_below). i's first partner is the smallest index on its path (roots containing
    // it) or at and below its node (roots it contains); "" overlaps everything.
    constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> min_here{none}, min_below{none};
    std::unordered_map<std::string, std::uint32_t> edges;
    std::size_t min_universal = none;
    std::optional<std::pair<std::size_t, std::size_t>> first;
    for (std::size_t i = roots.size(); i-- > 0;) {
        std::size_t partner = min_universal;
        if (roots[i].empty()) {
            if (i + 1 < roots.size()) partner = i + 1;
            min_universal = i;
        } else {
            auto parts = segments(roots[i]);
            std::uint32_t node = 0;
            bool whole = true;
            for (auto segment : parts) {
                auto it = edges.find(edge_key(node, segment));
                if (it == edges.end()) {
                    whole = false;
                    break;
                }
                node = it->second;
                partner = std::min(partner, min_here[node]);
            }
            if (whole) partner = std::min(partner, min_below[node]);
            node = 0;
            for (auto segment : parts) {
                auto [it, added] =
                    edges.try_emplace(edge_key(node, segment), static_cast<std::uint32_t>(min_here.size()));
                if (added) {
                    min_here.push_back(none);
                    min_below.push_back(none);
                }
                node = it->second;
                min_below[node] = i;  // smaller than every index inserted before it
            }
            min_here[node] = i;
        }
        if (partner != none) first = {i, partner};
    }
    if (!first) return std::nullopt;
    return "manifest has overlapped roots: '" + roots[first->first] + "' and '" + roots[first->second] + "'";
}

std::optional<std::string> check_module_root(const RootTrie& roots, std::string_view package_path,
                                             std::string_view package_text, std::string_view module_path) {
    if (roots.contains(package_path)) return std::nullopt;
    return "manifest roots " + go_string_list(roots.roots()) + " do not permit '" + std::string(package_text) +
           "' in module '" + std::string(module_path) + "'";
}

std::optional<std::string> check_data_roots(const RootTrie& roots, const runtime::Value& data) {
    std::optional<std::string> error;
    // OPA's dfs: a path inside a root is fine; an object on the way to a root is walked.
    std::function<bool(const runtime::Value&, const std::string&)> walk = [&](const runtime::Value& node,
                                                                              const std::string& path) {
        std::string trimmed = trim(path);
        if (roots.contains(trimmed)) return true;
        if (node.is_object()) {
            // OPA asks RootPathsContain(split(path), root) for each root: the path's segments
            // taken as roots, so "on the way" is a segment that is empty or begins some root.
            bool on_the_way = false;
            for (auto s : segments(trimmed))
                if (s.empty() || roots.begins_a_root(s)) on_the_way = true;
            if (on_the_way) {
                for (const auto& e : node.object_entries()) {
                    std::string key = e.key.is_string() ? std::string(e.key.as_string()) : "";
                    if (!walk(e.value, path + "/" + key)) return false;
                }
                return true;
            }
        }
        error = "manifest roots " + go_string_list(roots.roots()) + " do not permit data at path '/" + trimmed +
                "' (hint: check bundle directory structure)";
        return false;
    };
    walk(data, "");
    return error;
}

std::optional<std::string> check_bundle_roots_overlap(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& bundles) {
    struct Entry {
        std::string canonical, bundle;
    };
    std::vector<Entry> entries;
    std::set<std::string> empty_root_bundles;
    for (const auto& [name, roots] : bundles)
        for (const auto& raw : roots) {
            std::string t = trim(raw);
            if (raw.empty()) empty_root_bundles.insert(name);
            entries.push_back({t.empty() ? "/" : "/" + t + "/", name});
        }
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
        return a.canonical != b.canonical ? a.canonical < b.canonical : a.bundle < b.bundle;
    });
    std::set<std::string> colliding, conflicts;
    auto display = [](const std::string& canonical) { return trim(canonical); };
    for (std::size_t start = 0; start < entries.size();) {
        std::size_t end = start + 1;
        while (end < entries.size() && entries[end].canonical == entries[start].canonical) ++end;
        std::set<std::string> group;
        for (std::size_t k = start; k < end; ++k) group.insert(entries[k].bundle);
        if (group.size() > 1) {
            colliding.insert(group.begin(), group.end());
            conflicts.insert("root " + display(entries[start].canonical) + " is in multiple bundles");
        }
        for (std::size_t d = end; d < entries.size() && entries[d].canonical.starts_with(entries[start].canonical);
             ++d) {
            bool cross = false;
            for (std::size_t k = start; k < end; ++k)
                if (entries[k].bundle != entries[d].bundle) {
                    colliding.insert(entries[k].bundle);
                    cross = true;
                }
            if (cross) {
                colliding.insert(entries[d].bundle);
                std::vector<std::string> paths = {display(entries[start].canonical), display(entries[d].canonical)};
                std::sort(paths.begin(), paths.end());
                conflicts.insert(paths[0] + " overlaps " + paths[1]);
            }
        }
        start = end;
    }
    if (colliding.empty()) return std::nullopt;
    auto join = [](const std::set<std::string>& s) {
        std::string out;
        for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
        return out;
    };
    if (!empty_root_bundles.empty())
        return "bundles [" + join(colliding) +
               "] have overlapping roots and cannot be activated simultaneously because bundle(s) [" +
               join(empty_root_bundles) + "] specify empty root paths ('') which overlap with any other bundle root";
    return "detected overlapping roots in manifests for these bundles: [" + join(colliding) + "] (" + join(conflicts) +
           ")";
}

}  // namespace gavel::engine::bundle
