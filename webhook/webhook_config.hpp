#pragma once
// Validating/MutatingWebhookConfiguration manifests for the loaded policies.
//
// Which packages get a webhook is read from the policy text: a package with
// deny/violation/warn rules gets a validating webhook at /validate/<pkg>, one
// with patch rules a mutating webhook at /mutate/<pkg>, and system.main one at
// "/". The resources come from comparisons with input.request.kind.kind
// ("Pod" -> pods); a package that names no kind gets resources ["*"].

#include <map>
#include <utility>
#include <set>
#include <string>
#include <vector>

namespace gavel::webhook {

struct PackageRules {
    std::vector<std::string> package;  // {"kubernetes", "admission"}
    bool validates = false;
    bool mutates = false;
    bool main = false;  // defines system.main
    std::set<std::string> kinds;
};

// Policies by file name -> text. Packages in name order.
std::vector<PackageRules> scan_policies(const std::map<std::string, std::string>& policies);

struct WebhookConfigOptions {
    std::string url;                 // https://host:port (no path), or empty when service is used
    std::string service_namespace;
    std::string service_name;
    int service_port = 443;
    std::string ca_bundle_pem;       // empty: no caBundle (e.g. cert-manager injects it)
    std::string name = "gavel";
    std::string failure_policy = "Fail";
    int timeout_seconds = 10;
    std::string ignore_label = "gavel.dev/ignore";  // namespaces with this label are not sent
    std::vector<std::string> operations = {"CREATE", "UPDATE"};
    std::string inject_ca_from;  // NAMESPACE/CERTIFICATE: cert-manager's CA injector fills caBundle
};

// The YAML documents (separated by ---); empty when no package has admission rules.
std::string webhook_config_yaml(const std::vector<PackageRules>& packages, const WebhookConfigOptions& options);

// serve --gatekeeper: one validating webhook at /gatekeeper whose rules come
// from the constraints' match.kinds (apiGroups as given, kinds as resources;
// a constraint without kinds, or "*", sends everything of its groups).
struct GatekeeperRule {
    std::vector<std::string> api_groups;  // "*" for any
    std::vector<std::string> resources;   // "*" for any
};
// kinds entries (apiGroups, kinds) of every constraint; an empty list: a constraint matching all kinds.
std::vector<GatekeeperRule> gatekeeper_rules(const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>& kinds,
                                             bool some_constraint_matches_all);
std::string gatekeeper_webhook_config_yaml(const std::vector<GatekeeperRule>& rules, const WebhookConfigOptions& options);

// "Pod" -> "pods", "Ingress" -> "ingresses", "NetworkPolicy" -> "networkpolicies"
std::string resource_for_kind(const std::string& kind);

}  // namespace gavel::webhook
