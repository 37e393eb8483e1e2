#pragma once
// Bundle roots, as OPA checks them: a bundle owns the parts of `data` its
// manifest's roots name; its packages and data must lie below them, roots in
// one manifest may not overlap, and bundles active together may not share or
// nest roots. Paths are '/'-separated ("kubernetes/admission"); "" is the
// whole of data. Error texts are OPA's.
//
// A manifest may list tens of thousands of roots: every check here is
// near-linear in the roots and paths it is given (a trie of root segments),
// never a comparison of every root with every other.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::engine::bundle {

// The parts of a '/'-separated path ("a/b" -> {"a", "b"}); "" (the whole of
// data) has none.
std::vector<std::string> path_parts(std::string_view path);

// RootPathsOverlap / RootPathsContain.
bool root_paths_overlap(std::string_view a, std::string_view b);
bool root_paths_contain(const std::vector<std::string>& roots, std::string_view path);

// A set of roots as a trie of their segments ("a/b" -> a -> b), so that asking
// about one path costs its length, whatever the number of roots.
class RootTrie {
public:
    explicit RootTrie(std::vector<std::string> roots);
    const std::vector<std::string>& roots() const { return roots_; }
    // Some root contains `path` (RootPathsContain).
    bool contains(std::string_view path) const;
    // Some root contains `path` or lies below it (RootPathsOverlap with any root).
    bool overlaps(std::string_view path) const;
    // Some root's first segment is `segment`.
    bool begins_a_root(std::string_view segment) const;

private:
    struct Node {
        bool root = false;            // a root ends here
        std::size_t roots_below = 0;  // roots ending here or below
    };
    std::optional<std::uint32_t> child(std::uint32_t node, std::string_view segment) const;
    // `path` followed down the trie: whether a root ends on the way (or at its end),
    // and the node it ends at, if the trie has it.
    struct Walk {
        bool through_root = false;
        std::optional<std::uint32_t> end;
    };
    Walk walk(std::string_view path) const;

    std::vector<std::string> roots_;
    bool universal_ = false;                                // "" is a root: it contains every path
    std::vector<Node> nodes_;                               // [0]: above every root
    std::unordered_map<std::string, std::uint32_t> edges_;  // (parent, segment) -> child
};

// "manifest has overlapped roots: 'a' and 'a/b'": the first pair (i < j, by i
// then j) that OPA's nested loop meets.
std::optional<std::string> check_manifest_roots(const std::vector<std::string>& roots);

// "manifest roots [a] do not permit 'package b' in module 'x.rego'" for a
// module whose package path ("b/c") is outside the roots.
std::optional<std::string> check_module_root(const RootTrie& roots, std::string_view package_path,
                                             std::string_view package_text, std::string_view module_path);

// "manifest roots [a] do not permit data at path '/b' (hint: check bundle directory structure)"
std::optional<std::string> check_data_roots(const RootTrie& roots, const runtime::Value& data);

// Across bundles (name, roots): "detected overlapping roots in manifests for these
// bundles: [a, b] (x overlaps x/y)", or the empty-root variant.
std::optional<std::string> check_bundle_roots_overlap(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& bundles);

// Go's fmt of a []string: "[a b]".
std::string go_string_list(const std::vector<std::string>& items);

}  // namespace gavel::engine::bundle
