#pragma once
// The Kubernetes API's kinds and the resources they are served as (group,
// version, plural name, scope), for webhook rules: "Endpoints" is `endpoints`
// in the core group, "Ingress" is `ingresses` in networking.k8s.io/v1. The
// table holds the built-in kinds of Kubernetes 1.30+; others (custom
// resources) are given with --resource.

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gavel::webhook {

struct ApiResource {
    std::string group;     // "" for the core group
    std::string version;   // "v1"
    std::string resource;  // plural, lower case: "ingresses"
    bool namespaced = true;
    bool operator==(const ApiResource&) const = default;
};

// A built-in kind, or nullopt.
std::optional<ApiResource> builtin_resource(std::string_view kind);

// "KIND=GROUP/VERSION/RESOURCE" (the core group as "KIND=VERSION/RESOURCE", e.g.
// "Pod=v1/pods"); a trailing ",cluster" marks a cluster-scoped resource.
// False with `error` when malformed.
bool parse_resource_flag(std::string_view text, std::string& kind, ApiResource& out, std::string& error);

// `overrides` first, then the built-in table.
std::optional<ApiResource> resource_for_kind(std::string_view kind,
                                             const std::map<std::string, ApiResource>& overrides);

}  // namespace gavel::webhook
