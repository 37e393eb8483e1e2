#pragma once
// OPA's bundle ownership of data (server.go's checkPathScope and
// checkPolicyPackageScope): while bundles are active, a data write or a policy
// package at, below or above one of their roots is theirs, and the API refuses
// it with OPA's words.

#include <optional>
#include <string>

#include "webhook/opa_api/store_path.hpp"
#include "webhook/policy_store.hpp"

namespace gavel::webhook::opa_api {

// The refusal when an active bundle's root covers `path` or lies below it
// ("path a/b is owned by bundle \"x\""; `shown` is the path as the message
// writes it), nullopt when no bundle owns it.
std::optional<std::string> bundle_owner_error(const Snapshot& snapshot, const StorePath& path,
                                              const std::string& shown);

}  // namespace gavel::webhook::opa_api
