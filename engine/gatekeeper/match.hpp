#pragma once
// A Constraint's `spec.match`, applied as Gatekeeper applies it
// (pkg/mutation/match): every criterion given must hold; one not given holds.
//   kinds               any entry whose kinds (or "*", or none) hold the object's kind and
//                       whose apiGroups (or "*", or none) hold its group
//   scope               Cluster: Namespaces and objects without a namespace; Namespaced: the others
//   namespaces          the object's namespace (a Namespace's own name) matches one entry
//   excludedNamespaces  ... matches none; entries are globs with * at the front and/or end
//   labelSelector       the object's labels (matchLabels, matchExpressions In/NotIn/Exists/DoesNotExist)
//   namespaceSelector   the labels of the object's Namespace (a Namespace's own); cluster-scoped
//                       objects match; a namespaced object whose Namespace is unknown is an error
//   name                the object's name (or generateName for a trailing *), a glob as above
//   source              All (default), Original or Generated
// Errors are values: Gatekeeper turns them into a violation of the constraint (autoreject).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::gatekeeper {

// "kube-*", "*-system", "*sys*" or an exact name.
bool wildcard_matches(std::string_view pattern, std::string_view candidate);
bool wildcard_matches_generate_name(std::string_view pattern, std::string_view generate_name);

struct LabelRequirement {
    enum class Op { In, NotIn, Exists, DoesNotExist, Equals };
    std::string key;
    Op op = Op::Equals;
    std::vector<std::string> values;
};

struct LabelSelector {
    std::vector<LabelRequirement> requirements;  // matchLabels as Equals, then matchExpressions
    bool matches(const runtime::Value* labels) const;
};

// Parses a metav1.LabelSelector as LabelSelectorAsSelector and ValidateLabelSelector check it.
std::optional<LabelSelector> parse_label_selector(const runtime::Value& selector, std::string& error);

struct KindsEntry {
    std::vector<std::string> api_groups;
    std::vector<std::string> kinds;
};

struct Match {
    std::vector<KindsEntry> kinds;
    std::string scope;
    std::vector<std::string> namespaces;
    std::vector<std::string> excluded_namespaces;
    std::optional<LabelSelector> label_selector;
    std::optional<LabelSelector> namespace_selector;
    std::string name;
    std::string source;
};

// spec.match as written; false with `error` when it is malformed.
bool parse_match(const runtime::Value& match, Match& out, std::string& error);

// What is matched: the object, the Namespace object when known, and the source ("Original").
struct Matchable {
    const runtime::Value* object = nullptr;
    const runtime::Value* namespace_object = nullptr;
    std::string_view source = "Original";
};

struct MatchOutcome {
    bool matched = false;
    std::string error;  // non-empty: the match could not be decided
};

MatchOutcome matches(const Match& match, const Matchable& target);

// The namespace that namespaces and excludedNamespaces are compared with: a
// Namespace's own name, else its Namespace's, else the object's; nullopt: none.
std::optional<std::string_view> namespace_for(const Matchable& target);

}  // namespace gavel::gatekeeper
