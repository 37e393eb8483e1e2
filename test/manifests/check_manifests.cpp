// Checks Kubernetes manifests against the API's field names and types, as the
// API server's strict decoding would: an unknown field, a string where an
// integer belongs (or `10` where a string belongs), a wrong enum value or a
// missing required field is an error. The schema below is the subset of the
// Kubernetes API reference (v1.30) our manifests use, written out by hand:
// admissionregistration.k8s.io/v1 Validating/MutatingWebhookConfiguration in
// full; Deployment, Service, Namespace, ServiceAccount, PodDisruptionBudget,
// PriorityClass, RBAC and Secret for the fields they have. Kinds not described
// here (cert-manager's, kustomize's) are skipped by name.
//
// Usage: check_manifests FILE|DIR... [--patch FILE...]   (exit 1 when a file has errors, listing them)
// Files after --patch are kustomize patches: partial objects, required fields not checked.

#include <re2/re2.h>

#include "lang/yaml_node.hpp"
#include "runtime/yaml_scalar.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

struct Type;
using T = std::shared_ptr<const Type>;

struct Type {
    enum Kind { String, Int, Bool, Object, Array, Map, IntOrString, Quantity, Any } kind = Any;
    std::map<std::string, T> fields;  // Object
    std::set<std::string> required;   // Object
    T item;                           // Array, Map values
    std::set<std::string> values;     // String: allowed values (empty: any)
};

T make(Type::Kind k) {
    auto t = std::make_shared<Type>();
    t->kind = k;
    return t;
}
T str() { return make(Type::String); }
T integer() { return make(Type::Int); }
T boolean() { return make(Type::Bool); }
T any() { return make(Type::Any); }
T int_or_string() { return make(Type::IntOrString); }
T quantity() { return make(Type::Quantity); }
T one_of(std::set<std::string> values) {
    auto t = std::make_shared<Type>();
    t->kind = Type::String;
    t->values = std::move(values);
    return t;
}
T array(T item) {
    auto t = std::make_shared<Type>();
    t->kind = Type::Array;
    t->item = std::move(item);
    return t;
}
T map_of(T item) {
    auto t = std::make_shared<Type>();
    t->kind = Type::Map;
    t->item = std::move(item);
    return t;
}
T object(std::map<std::string, T> fields, std::set<std::string> required = {}) {
    auto t = std::make_shared<Type>();
    t->kind = Type::Object;
    t->fields = std::move(fields);
    t->required = std::move(required);
    return t;
}

// ---- The schema (Kubernetes API reference) ----------------------------------

T object_meta() {
    return object({{"name", str()}, {"namespace", str()}, {"labels", map_of(str())}, {"annotations", map_of(str())}});
}

T label_selector() {
    auto requirement = object(
        {{"key", str()}, {"operator", one_of({"In", "NotIn", "Exists", "DoesNotExist"})}, {"values", array(str())}},
        {"key", "operator"});
    return object({{"matchLabels", map_of(str())}, {"matchExpressions", array(requirement)}});
}

T webhook(bool mutating) {
    auto rule = object({{"operations", array(one_of({"*", "CREATE", "UPDATE", "DELETE", "CONNECT"}))},
                        {"apiGroups", array(str())},
                        {"apiVersions", array(str())},
                        {"resources", array(str())},
                        {"scope", one_of({"*", "Cluster", "Namespaced"})}});
    auto service =
        object({{"namespace", str()}, {"name", str()}, {"path", str()}, {"port", integer()}}, {"namespace", "name"});
    auto client_config = object({{"url", str()}, {"service", service}, {"caBundle", str()}});
    auto match_condition = object({{"name", str()}, {"expression", str()}}, {"name", "expression"});
    std::map<std::string, T> fields = {
        {"name", str()},
        {"clientConfig", client_config},
        {"rules", array(rule)},
        {"failurePolicy", one_of({"Ignore", "Fail"})},
        {"matchPolicy", one_of({"Exact", "Equivalent"})},
        {"namespaceSelector", label_selector()},
        {"objectSelector", label_selector()},
        {"sideEffects", one_of({"None", "NoneOnDryRun", "Some", "Unknown"})},
        {"timeoutSeconds", integer()},
        {"admissionReviewVersions", array(str())},
        {"matchConditions", array(match_condition)},
    };
    if (mutating) fields["reinvocationPolicy"] = one_of({"Never", "IfNeeded"});
    return object(fields, {"name", "clientConfig", "sideEffects", "admissionReviewVersions"});
}

T top(std::map<std::string, T> fields, std::set<std::string> required = {"apiVersion", "kind", "metadata"}) {
    fields["apiVersion"] = str();
    fields["kind"] = str();
    fields["metadata"] = object_meta();
    return object(fields, required);
}

T probe() {
    auto http_get =
        object({{"path", str()}, {"port", int_or_string()}, {"scheme", one_of({"HTTP", "HTTPS"})}}, {"port"});
    return object({{"httpGet", http_get},
                   {"initialDelaySeconds", integer()},
                   {"periodSeconds", integer()},
                   {"timeoutSeconds", integer()},
                   {"failureThreshold", integer()},
                   {"successThreshold", integer()}});
}

T pod_spec() {
    auto env = object({{"name", str()}, {"value", str()}}, {"name"});
    auto container = object(
        {{"name", str()},
         {"image", str()},
         {"imagePullPolicy", one_of({"Always", "Never", "IfNotPresent"})},
         {"args", array(str())},
         {"command", array(str())},
         {"env", array(env)},
         {"ports",
          array(object({{"name", str()}, {"containerPort", integer()}, {"protocol", one_of({"TCP", "UDP", "SCTP"})}},
                       {"containerPort"}))},
         {"livenessProbe", probe()},
         {"readinessProbe", probe()},
         {"startupProbe", probe()},
         {"lifecycle", object({{"preStop", object({{"sleep", object({{"seconds", integer()}}, {"seconds"})}})}})},
         {"resources", object({{"requests", map_of(quantity())}, {"limits", map_of(quantity())}})},
         {"securityContext", object({{"readOnlyRootFilesystem", boolean()},
                                     {"allowPrivilegeEscalation", boolean()},
                                     {"runAsNonRoot", boolean()},
                                     {"capabilities", object({{"drop", array(str())}, {"add", array(str())}})}})},
         {"volumeMounts",
          array(object({{"name", str()}, {"mountPath", str()}, {"readOnly", boolean()}}, {"name", "mountPath"}))}},
        {"name"});
    auto affinity_term = object({{"topologyKey", str()}, {"labelSelector", label_selector()}}, {"topologyKey"});
    auto affinity =
        object({{"podAntiAffinity", object({{"requiredDuringSchedulingIgnoredDuringExecution", array(affinity_term)},
                                            {"preferredDuringSchedulingIgnoredDuringExecution",
                                             array(object({{"weight", integer()}, {"podAffinityTerm", affinity_term}},
                                                          {"weight", "podAffinityTerm"}))}})}});
    auto volume = object({{"name", str()},
                          {"configMap", object({{"name", str()}})},
                          {"secret", object({{"secretName", str()}})},
                          {"projected", any()}},
                         {"name"});
    auto spread = object({{"maxSkew", integer()},
                          {"topologyKey", str()},
                          {"whenUnsatisfiable", one_of({"DoNotSchedule", "ScheduleAnyway"})},
                          {"labelSelector", label_selector()}},
                         {"maxSkew", "topologyKey", "whenUnsatisfiable"});
    return object(
        {{"serviceAccountName", str()},
         {"automountServiceAccountToken", boolean()},
         {"priorityClassName", str()},
         {"securityContext",
          object({{"runAsNonRoot", boolean()},
                  {"runAsUser", integer()},
                  {"runAsGroup", integer()},
                  {"seccompProfile", object({{"type", one_of({"RuntimeDefault", "Localhost", "Unconfined"})}})}})},
         {"affinity", affinity},
         {"topologySpreadConstraints", array(spread)},
         {"terminationGracePeriodSeconds", integer()},
         {"containers", array(container)},
         {"volumes", array(volume)}},
        {"containers"});
}

std::map<std::string, T> schemas() {
    std::map<std::string, T> s;
    s["admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration"] = top({{"webhooks", array(webhook(false))}});
    s["admissionregistration.k8s.io/v1/MutatingWebhookConfiguration"] = top({{"webhooks", array(webhook(true))}});
    s["v1/Namespace"] = top({});
    s["v1/ServiceAccount"] = top({{"automountServiceAccountToken", boolean()}});
    s["v1/Secret"] = top({{"type", str()}, {"stringData", map_of(str())}, {"data", map_of(str())}});
    auto port =
        object({{"name", str()}, {"port", integer()}, {"targetPort", int_or_string()}, {"protocol", str()}}, {"port"});
    s["v1/Service"] = top({{"spec", object({{"selector", map_of(str())}, {"ports", array(port)}, {"type", str()}})}});
    s["apps/v1/Deployment"] =
        top({{"spec", object({{"replicas", integer()},
                              {"selector", label_selector()},
                              {"strategy", any()},
                              {"template", object({{"metadata", object_meta()}, {"spec", pod_spec()}})}},
                             {"selector", "template"})}});
    s["policy/v1/PodDisruptionBudget"] = top({{"spec", object({{"minAvailable", int_or_string()},
                                                               {"maxUnavailable", int_or_string()},
                                                               {"selector", label_selector()}})}});
    s["scheduling.k8s.io/v1/PriorityClass"] = top({{"value", integer()},
                                                   {"globalDefault", boolean()},
                                                   {"description", str()},
                                                   {"preemptionPolicy", one_of({"Never", "PreemptLowerPriority"})}},
                                                  {"apiVersion", "kind", "metadata", "value"});
    auto policy_rule = object({{"apiGroups", array(str())},
                               {"resources", array(str())},
                               {"resourceNames", array(str())},
                               {"verbs", array(str())}},
                              {"verbs"});
    s["rbac.authorization.k8s.io/v1/ClusterRole"] = top({{"rules", array(policy_rule)}});
    s["rbac.authorization.k8s.io/v1/Role"] = top({{"rules", array(policy_rule)}});
    auto binding =
        top({{"roleRef", object({{"apiGroup", str()}, {"kind", str()}, {"name", str()}}, {"apiGroup", "kind", "name"})},
             {"subjects", array(object({{"kind", str()}, {"name", str()}, {"namespace", str()}, {"apiGroup", str()}},
                                       {"kind", "name"}))}},
            {"apiVersion", "kind", "metadata", "roleRef"});
    s["rbac.authorization.k8s.io/v1/ClusterRoleBinding"] = binding;
    s["rbac.authorization.k8s.io/v1/RoleBinding"] = binding;
    return s;
}

// Kinds whose schema is not ours to check.
const std::set<std::string> kSkipped = {"cert-manager.io/v1/Issuer", "cert-manager.io/v1/Certificate",
                                        "kustomize.config.k8s.io/v1beta1/Kustomization"};

// ---- Checking ---------------------------------------------------------------

using gavel::lang::yaml::Node;

// What a scalar becomes in JSON (sigs.k8s.io/yaml reads YAML 1.1 values, as runtime/yaml_scalar.hpp).
enum class Scalar { String, Int, Float, Bool, Null };
Scalar classify(const Node& n) {
    if (!n.plain()) return Scalar::String;  // quoted, a block, or tagged
    gavel::runtime::YamlScalar r = gavel::runtime::resolve_plain_yaml_scalar(n.text);
    if (r.error) return Scalar::Float;  // .inf, .nan
    if (r.value.is_null()) return Scalar::Null;
    if (r.value.is_bool()) return Scalar::Bool;
    if (r.value.is_number())
        return n.text.find("0x") == std::string::npos && n.text.find_first_of(".eE") != std::string::npos
                   ? Scalar::Float
                   : Scalar::Int;
    return Scalar::String;
}

bool g_partial = false;  // checking a patch: required fields may be missing

void check(const Node& n, const T& t, const std::string& path, std::vector<std::string>& errors) {
    auto want = [&](const std::string& what) { errors.push_back(path + ": want " + what); };
    switch (t->kind) {
        case Type::Any: return;
        case Type::String:
            if (!n.is_scalar() || classify(n) != Scalar::String) return want("a string");
            if (!t->values.empty() && !t->values.count(n.text)) {
                std::string list;
                for (const auto& v : t->values) list += (list.empty() ? "" : ", ") + v;
                want("one of " + list + " (got " + n.text + ")");
            }
            return;
        case Type::Int:
            if (!n.is_scalar() || classify(n) != Scalar::Int) want("an integer");
            return;
        case Type::Bool:
            if (!n.is_scalar() || classify(n) != Scalar::Bool) want("a boolean");
            return;
        case Type::IntOrString:
            if (!n.is_scalar() || (classify(n) != Scalar::Int && classify(n) != Scalar::String))
                want("an integer or a string");
            return;
        case Type::Quantity: {
            static const RE2 quantity_re("[0-9]+(\\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?");
            if (!n.is_scalar() || !RE2::FullMatch(n.text, quantity_re)) want("a quantity (100m, 64Mi, \"1\")");
            return;
        }
        case Type::Array:
            if (!n.is_sequence()) return want("a list");
            for (std::size_t i = 0; i < n.items.size(); ++i)
                check(*n.items[i], t->item, path + "[" + std::to_string(i) + "]", errors);
            return;
        case Type::Map:
            if (!n.is_mapping()) return want("a map");
            for (const auto& [k, v] : n.members) check(*v, t->item, path + "." + k->text, errors);
            return;
        case Type::Object:
            if (!n.is_mapping()) return want("an object");
            for (const auto& [k, v] : n.members) {
                const std::string& key = k->text;
                auto f = t->fields.find(key);
                if (f == t->fields.end()) errors.push_back(path + "." + key + ": unknown field");
                else check(*v, f->second, path + "." + key, errors);
            }
            for (const auto& r : t->required)
                if (!g_partial && !n.get(r)) errors.push_back(path + "." + r + ": required");
            return;
    }
}

int check_file(const std::filesystem::path& file, const std::map<std::string, T>& schema, int& objects) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    gavel::lang::yaml::Documents read = gavel::lang::yaml::read_documents(text.str());
    if (!read.ok) {
        std::cerr << file.string() << ": not YAML: " << read.error << "\n";
        return 1;
    }
    const auto& docs = read.documents;
    std::vector<std::string> errors;
    for (std::size_t d = 0; d < docs.size(); ++d) {
        const Node& doc = *docs[d];
        if (doc.is_null()) continue;
        std::string where = file.string() + "#" + std::to_string(d);
        const Node* api_version = doc.get("apiVersion");
        const Node* kind = doc.get("kind");
        if (!doc.is_mapping() || !api_version || !kind) {
            errors.push_back(where + ": no apiVersion and kind");
            continue;
        }
        std::string key = api_version->text + "/" + kind->text;
        if (kSkipped.count(key)) continue;
        auto s = schema.find(key);
        if (s == schema.end()) {
            // A patch (kustomize strategic merge) of a Deployment has no full schema either.
            errors.push_back(where + ": " + key + " has no schema in check_manifests.cpp");
            continue;
        }
        ++objects;
        check(doc, s->second, where + " " + kind->text, errors);
    }
    for (const auto& e : errors) std::cerr << e << "\n";
    return errors.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    auto schema = schemas();
    std::vector<std::filesystem::path> full, patches;
    bool in_patches = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--patch") {
            in_patches = true;
            continue;
        }
        (in_patches ? patches : full).push_back(std::filesystem::weakly_canonical(arg));
    }
    // A directory stands for its .yaml/.yml files, less those given as patches.
    std::vector<std::filesystem::path> files;
    for (const auto& p : full) {
        if (!std::filesystem::is_directory(p)) {
            files.push_back(p);
            continue;
        }
        std::vector<std::filesystem::path> list;
        for (const auto& e : std::filesystem::directory_iterator(p))
            if ((e.path().extension() == ".yaml" || e.path().extension() == ".yml") &&
                std::find(patches.begin(), patches.end(), e.path()) == patches.end())
                list.push_back(e.path());
        std::sort(list.begin(), list.end());
        files.insert(files.end(), list.begin(), list.end());
    }
    int failures = 0, objects = 0;
    for (const auto& f : files) failures += check_file(f, schema, objects);
    g_partial = true;
    for (const auto& f : patches) failures += check_file(f, schema, objects);
    std::size_t count = files.size() + patches.size();
    if (count == 0) {
        std::cerr << "check_manifests: no manifest given\n";
        return 1;
    }
    std::cout << count << " files, " << objects << " objects checked, " << failures << " with errors\n";
    return failures ? 1 : 0;
}
