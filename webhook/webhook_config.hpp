#pragma once
// Validating/MutatingWebhookConfiguration manifests for the loaded policies.
//
// Which packages get a webhook, and for what, is read from the compiled
// policies (Engine::compared_constants), not from their text: a package with
// deny/violation/warn rules gets a validating webhook at /validate/<pkg>, one
// with patch rules a mutating webhook at /mutate/<pkg>, and system.main one at
// "/". The kinds its rules compare input.request.kind.kind with become the
// rules' resources (kubernetes_resources.hpp), the operations they compare
// input.request.operation with the rules' operations (CREATE and UPDATE when
// none). A package that names no kind is refused unless resources "*" are
// asked for (all_resources): a webhook on every resource can lock a cluster up.
//
// Every webhook leaves out kube-system, kube-node-lease and gavel's own
// namespace (by kubernetes.io/metadata.name) and gavel's own Pods (by label).

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "webhook/kubernetes_resources.hpp"

namespace gavel::webhook {

struct PackageRules {
    std::vector<std::string> package;  // {"kubernetes", "admission"}
    bool validates = false;
    bool mutates = false;
    bool main = false;  // defines system.main
    std::set<std::string> kinds;
    std::set<std::string> operations;
};

// The packages with admission rules, in package order; empty with `errors` when
// the policies do not compile.
std::vector<PackageRules> admission_packages(Engine& engine, lang::Diagnostics& errors);

struct WebhookConfigOptions {
    std::string url;  // https://host:port (no path), or empty when service is used
    std::string service_namespace;
    std::string service_name;
    int service_port = 443;
    std::string ca_bundle_pem;  // empty: no caBundle (e.g. cert-manager injects it)
    std::string name = "gavel";
    std::string own_namespace = "gavel";  // never sent (the service's namespace when there is one)
    std::vector<std::string> excluded_namespaces = {"kube-system", "kube-node-lease"};
    std::string server_label = "app.kubernetes.io/name";  // gavel's own Pods: objects whose label KEY is `name`
    std::string failure_policy = "Fail";             // validating webhooks: deliberate, see examples/deploy/README.md
    std::string mutating_failure_policy = "Ignore";  // a mutation is not worth a locked-up cluster
    int timeout_seconds = 10;
    std::string ignore_label;  // optional: namespaces with this label are not sent either
    std::vector<std::string> default_operations = {"CREATE", "UPDATE"};
    std::string inject_ca_from;                    // NAMESPACE/CERTIFICATE: cert-manager's CA injector fills caBundle
    std::map<std::string, ApiResource> resources;  // --resource: kinds added or overridden
    bool all_resources = false;                    // a package that names no kind gets resources ["*"]
    bool static_manifests = false;                 // KEP-5793: names end in .static.k8s.io, url only, caBundle required
};

// One Validating- or MutatingWebhookConfiguration, as one YAML document.
struct WebhookConfiguration {
    std::string kind;  // ValidatingWebhookConfiguration or MutatingWebhookConfiguration
    std::string name;
    std::string yaml;
};

// False with `error` when a package names no kind (and not all_resources) or a
// kind is unknown. No package with admission rules: true and nothing.
bool build_webhook_configurations(const std::vector<PackageRules>& packages, const WebhookConfigOptions& options,
                                  std::vector<WebhookConfiguration>& out, std::string& error);

// serve --gatekeeper: one ValidatingWebhookConfiguration with a webhook at
// /gatekeeper, whose rules come from the constraints' match.kinds entries
// (apiGroups as given, each kind mapped to its resource as for policies). A
// constraint without kinds (or "*") would send every resource: refused unless
// all_resources, as for policies.
struct GatekeeperKinds {
    std::vector<std::string> api_groups;  // empty or "*": any group
    std::vector<std::string> kinds;       // empty or "*": any kind
};
bool build_gatekeeper_configuration(const std::vector<GatekeeperKinds>& kinds, const WebhookConfigOptions& options,
                                    std::vector<WebhookConfiguration>& out, std::string& error);

// The documents separated by ---.
std::string join_documents(const std::vector<WebhookConfiguration>& configurations);

// KEP-5793's rules for a kube-apiserver staticManifestsDir, checked on the YAML
// itself: admissionregistration.k8s.io/v1 webhook configurations named
// *.static.k8s.io, unique per kind, every webhook with clientConfig.url
// (https) and caBundle and no clientConfig.service, unique webhook names.
bool validate_static_manifests(const std::vector<WebhookConfiguration>& configurations, std::string& error);

// What a configuration serves: validating or mutating (the subdirectory of a staticManifestsDir).
std::string static_manifest_subdir(const WebhookConfiguration& configuration);

}  // namespace gavel::webhook
