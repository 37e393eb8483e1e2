#include "webhook/kubernetes_resources.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

namespace gavel::webhook {

namespace {

struct Entry {
    std::string_view kind, group, version, resource;
    bool namespaced;
};

// From the Kubernetes API reference (v1.30): the served (preferred) version of each kind.
constexpr std::array kKinds = {
    // core
    Entry{"Binding", "", "v1", "bindings", true},
    Entry{"ConfigMap", "", "v1", "configmaps", true},
    Entry{"Endpoints", "", "v1", "endpoints", true},
    Entry{"Event", "", "v1", "events", true},
    Entry{"LimitRange", "", "v1", "limitranges", true},
    Entry{"Namespace", "", "v1", "namespaces", false},
    Entry{"Node", "", "v1", "nodes", false},
    Entry{"PersistentVolume", "", "v1", "persistentvolumes", false},
    Entry{"PersistentVolumeClaim", "", "v1", "persistentvolumeclaims", true},
    Entry{"Pod", "", "v1", "pods", true},
    Entry{"PodTemplate", "", "v1", "podtemplates", true},
    Entry{"ReplicationController", "", "v1", "replicationcontrollers", true},
    Entry{"ResourceQuota", "", "v1", "resourcequotas", true},
    Entry{"Secret", "", "v1", "secrets", true},
    Entry{"Service", "", "v1", "services", true},
    Entry{"ServiceAccount", "", "v1", "serviceaccounts", true},
    // admissionregistration.k8s.io
    Entry{"MutatingWebhookConfiguration", "admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", false},
    Entry{"ValidatingAdmissionPolicy", "admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", false},
    Entry{"ValidatingAdmissionPolicyBinding", "admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings",
          false},
    Entry{"ValidatingWebhookConfiguration", "admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
          false},
    // apiextensions.k8s.io
    Entry{"CustomResourceDefinition", "apiextensions.k8s.io", "v1", "customresourcedefinitions", false},
    // apps
    Entry{"ControllerRevision", "apps", "v1", "controllerrevisions", true},
    Entry{"DaemonSet", "apps", "v1", "daemonsets", true},
    Entry{"Deployment", "apps", "v1", "deployments", true},
    Entry{"ReplicaSet", "apps", "v1", "replicasets", true},
    Entry{"StatefulSet", "apps", "v1", "statefulsets", true},
    // autoscaling
    Entry{"HorizontalPodAutoscaler", "autoscaling", "v2", "horizontalpodautoscalers", true},
    // batch
    Entry{"CronJob", "batch", "v1", "cronjobs", true},
    Entry{"Job", "batch", "v1", "jobs", true},
    // certificates.k8s.io
    Entry{"CertificateSigningRequest", "certificates.k8s.io", "v1", "certificatesigningrequests", false},
    // coordination.k8s.io
    Entry{"Lease", "coordination.k8s.io", "v1", "leases", true},
    // discovery.k8s.io
    Entry{"EndpointSlice", "discovery.k8s.io", "v1", "endpointslices", true},
    // flowcontrol.apiserver.k8s.io
    Entry{"FlowSchema", "flowcontrol.apiserver.k8s.io", "v1", "flowschemas", false},
    Entry{"PriorityLevelConfiguration", "flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations", false},
    // networking.k8s.io
    Entry{"Ingress", "networking.k8s.io", "v1", "ingresses", true},
    Entry{"IngressClass", "networking.k8s.io", "v1", "ingressclasses", false},
    Entry{"NetworkPolicy", "networking.k8s.io", "v1", "networkpolicies", true},
    // node.k8s.io
    Entry{"RuntimeClass", "node.k8s.io", "v1", "runtimeclasses", false},
    // policy
    Entry{"PodDisruptionBudget", "policy", "v1", "poddisruptionbudgets", true},
    // rbac.authorization.k8s.io
    Entry{"ClusterRole", "rbac.authorization.k8s.io", "v1", "clusterroles", false},
    Entry{"ClusterRoleBinding", "rbac.authorization.k8s.io", "v1", "clusterrolebindings", false},
    Entry{"Role", "rbac.authorization.k8s.io", "v1", "roles", true},
    Entry{"RoleBinding", "rbac.authorization.k8s.io", "v1", "rolebindings", true},
    // scheduling.k8s.io
    Entry{"PriorityClass", "scheduling.k8s.io", "v1", "priorityclasses", false},
    // storage.k8s.io
    Entry{"CSIDriver", "storage.k8s.io", "v1", "csidrivers", false},
    Entry{"CSINode", "storage.k8s.io", "v1", "csinodes", false},
    Entry{"CSIStorageCapacity", "storage.k8s.io", "v1", "csistoragecapacities", true},
    Entry{"StorageClass", "storage.k8s.io", "v1", "storageclasses", false},
    Entry{"VolumeAttachment", "storage.k8s.io", "v1", "volumeattachments", false},
};

bool dns_like(std::string_view s, bool dots) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [dots](unsigned char c) {
        return std::islower(c) || std::isdigit(c) || c == '-' || (dots && c == '.');
    });
}

}  // namespace

std::optional<ApiResource> builtin_resource(std::string_view kind) {
    for (const auto& e : kKinds)
        if (e.kind == kind)
            return ApiResource{std::string(e.group), std::string(e.version), std::string(e.resource), e.namespaced};
    return std::nullopt;
}

bool parse_resource_flag(std::string_view text, std::string& kind, ApiResource& out, std::string& error) {
    error =
        "--resource " + std::string(text) + ": want KIND=GROUP/VERSION/RESOURCE (core group: KIND=VERSION/RESOURCE)";
    auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    kind = std::string(text.substr(0, eq));
    if (!std::all_of(kind.begin(), kind.end(), [](unsigned char c) { return std::isalnum(c); })) return false;
    std::string_view rest = text.substr(eq + 1);
    out = ApiResource{};
    if (auto comma = rest.find(','); comma != std::string_view::npos) {
        if (rest.substr(comma + 1) != "cluster") return false;
        out.namespaced = false;
        rest = rest.substr(0, comma);
    }
    std::vector<std::string_view> parts;
    while (true) {
        auto slash = rest.find('/');
        parts.push_back(rest.substr(0, slash));
        if (slash == std::string_view::npos) break;
        rest = rest.substr(slash + 1);
    }
    if (parts.size() == 2) parts.insert(parts.begin(), std::string_view{});
    if (parts.size() != 3) return false;
    if (!parts[0].empty() && !dns_like(parts[0], true)) return false;
    if (!dns_like(parts[1], false) || !dns_like(parts[2], false)) return false;
    out.group = std::string(parts[0]);
    out.version = std::string(parts[1]);
    out.resource = std::string(parts[2]);
    error.clear();
    return true;
}

std::optional<ApiResource> resource_for_kind(std::string_view kind,
                                             const std::map<std::string, ApiResource>& overrides) {
    if (auto it = overrides.find(std::string(kind)); it != overrides.end()) return it->second;
    return builtin_resource(kind);
}

}  // namespace gavel::webhook
