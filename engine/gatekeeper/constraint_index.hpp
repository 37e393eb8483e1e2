#pragma once
// Which constraints can match an object, found without looking at each one
// (as Gatekeeper's client keys constraints by kind): constraints are filed
// under the (apiGroup, kind) pairs of their match.kinds ("*" for a wildcard or
// an empty list) and, when match.namespaces names namespaces without globs,
// under those namespaces. A lookup returns a superset of the matching
// constraints, in the order they were added; matches() still decides each.
// Filing follows matches(): kinds are its first criterion, and namespaces
// rules a constraint out only when the object has a namespace to compare.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/small_vector.hpp"

#include "engine/gatekeeper/match.hpp"

namespace gavel::gatekeeper {

class ConstraintIndex {
public:
    using Ids = boost::container::small_vector<std::uint32_t, 64>;

    // Constraint number `id` (ids grow with each call: lookups return them in that order).
    void add(std::uint32_t id, const Match& match);

    // Adds to `out` the ids that may match an object of this group and kind, in
    // `namespace_name` (nullopt: the namespaces criterion cannot rule anything out);
    // `out` is left sorted and without duplicates (a second call adds a union).
    // The namespace matters only when by_namespace(): else nullopt costs less and finds the same.
    void candidates(std::string_view group, std::string_view kind, std::optional<std::string_view> namespace_name,
                    Ids& out) const;
    bool by_namespace() const { return by_namespace_; }

private:
    struct Bucket {
        std::vector<std::uint32_t> any_namespace;
        std::map<std::string, std::vector<std::uint32_t>, std::less<>> by_namespace;
    };
    using ByKind = std::map<std::string, Bucket, std::less<>>;
    std::map<std::string, ByKind, std::less<>> buckets_;  // by group, then kind; "*" for any
    bool by_namespace_ = false;                           // some constraint is filed under namespaces
};

}  // namespace gavel::gatekeeper
