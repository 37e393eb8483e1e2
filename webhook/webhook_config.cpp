#include "support/base64.hpp"
#include "webhook/webhook_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <tuple>

#include "webhook/admission.hpp"
#include "webhook/json_patch.hpp"

namespace gavel::webhook {

namespace {

constexpr const char* kKindRef = "input.request.kind.kind";
constexpr const char* kOperationRef = "input.request.operation";
constexpr std::string_view kStaticSuffix = ".static.k8s.io";

std::vector<std::string> split_dots(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (true) {
        auto dot = s.find('.', start);
        out.push_back(s.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += sep;
        out += parts[i];
    }
    return out;
}

// A DNS-1123 label out of a package path: lower case, [a-z0-9-].
std::string dns_name(const std::vector<std::string>& package) {
    std::string out;
    for (char c : join(package, "-")) {
        unsigned char u = static_cast<unsigned char>(c);
        out.push_back(std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '-');
    }
    return out.empty() ? "root" : out;
}

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

struct Rule {
    std::vector<std::string> operations, groups, versions, resources;
};

struct Hook {
    std::string name, path;
    std::vector<Rule> rules;
};

// One rule per group/version, resources sorted; "*" when the package names no kind.
bool rules_for(const PackageRules& p, const WebhookConfigOptions& o, std::vector<Rule>& out, std::string& error) {
    std::vector<std::string> operations(p.operations.begin(), p.operations.end());
    if (operations.empty()) operations = o.default_operations;
    if (p.kinds.empty()) {
        if (!o.all_resources) {
            error = "package " + join(p.package, ".") + " compares " + kKindRef +
                    " with no constant kind, so its webhook would receive every resource (resources: [\"*\"]); "
                    "test the kind in the policy (input.request.kind.kind == \"Pod\"), or give --all-resources";
            return false;
        }
        out.push_back({operations, {"*"}, {"*"}, {"*"}});
        return true;
    }
    std::map<std::pair<std::string, std::string>, std::set<std::string>> by_group;
    for (const auto& kind : p.kinds) {
        auto r = resource_for_kind(kind, o.resources);
        if (!r) {
            error = "package " + join(p.package, ".") + ": unknown kind " + kind +
                    " (not a built-in Kubernetes kind): give --resource " + kind + "=GROUP/VERSION/RESOURCE";
            return false;
        }
        by_group[{r->group, r->version}].insert(r->resource);
    }
    for (const auto& [gv, resources] : by_group)
        out.push_back({operations, {gv.first}, {gv.second}, {resources.begin(), resources.end()}});
    return true;
}

void emit_list(YAML::Emitter& y, const std::vector<std::string>& items) {
    y << YAML::Flow << YAML::BeginSeq;
    for (const auto& i : items) y << YAML::DoubleQuoted << i;
    y << YAML::EndSeq;
}

std::string document(std::string_view kind, const std::string& name, const std::vector<Hook>& hooks,
                     const WebhookConfigOptions& o, bool mutating) {
    std::string ca = o.ca_bundle_pem.empty() ? "" : support::base64_encode(o.ca_bundle_pem);
    YAML::Emitter y;
    y.SetIndent(2);
    y << YAML::BeginMap;
    y << YAML::Key << "apiVersion" << YAML::Value << "admissionregistration.k8s.io/v1";
    y << YAML::Key << "kind" << YAML::Value << std::string(kind);
    y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "name" << YAML::Value << name;
    y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap << YAML::Key << "app.kubernetes.io/managed-by"
      << YAML::Value << "gavel" << YAML::EndMap;
    if (!o.inject_ca_from.empty())
        y << YAML::Key << "annotations" << YAML::Value << YAML::BeginMap << YAML::Key << "cert-manager.io/inject-ca-from"
          << YAML::Value << o.inject_ca_from << YAML::EndMap;
    y << YAML::EndMap;
    y << YAML::Key << "webhooks" << YAML::Value << YAML::BeginSeq;
    for (const auto& h : hooks) {
        y << YAML::BeginMap;
        y << YAML::Key << "name" << YAML::Value << h.name;
        y << YAML::Key << "admissionReviewVersions" << YAML::Value;
        emit_list(y, {"v1", "v1beta1"});
        y << YAML::Key << "sideEffects" << YAML::Value << "None";
        y << YAML::Key << "failurePolicy" << YAML::Value << (mutating ? o.mutating_failure_policy : o.failure_policy);
        y << YAML::Key << "matchPolicy" << YAML::Value << "Equivalent";
        y << YAML::Key << "timeoutSeconds" << YAML::Value << o.timeout_seconds;
        if (mutating) y << YAML::Key << "reinvocationPolicy" << YAML::Value << "Never";
        // Never the control plane's own namespaces nor gavel's: a gavel that is down must
        // not stop the cluster from scheduling gavel again.
        std::vector<std::string> excluded = o.excluded_namespaces;
        if (!o.own_namespace.empty()) excluded.push_back(o.own_namespace);
        y << YAML::Key << "namespaceSelector" << YAML::Value << YAML::BeginMap << YAML::Key << "matchExpressions"
          << YAML::Value << YAML::BeginSeq;
        y << YAML::BeginMap << YAML::Key << "key" << YAML::Value << "kubernetes.io/metadata.name" << YAML::Key
          << "operator" << YAML::Value << "NotIn" << YAML::Key << "values" << YAML::Value;
        emit_list(y, excluded);
        y << YAML::EndMap;
        if (!o.ignore_label.empty())
            y << YAML::BeginMap << YAML::Key << "key" << YAML::Value << o.ignore_label << YAML::Key << "operator"
              << YAML::Value << "DoesNotExist" << YAML::EndMap;
        y << YAML::EndSeq << YAML::EndMap;
        if (!o.server_label.empty()) {
            y << YAML::Key << "objectSelector" << YAML::Value << YAML::BeginMap << YAML::Key << "matchExpressions"
              << YAML::Value << YAML::BeginSeq;
            y << YAML::BeginMap << YAML::Key << "key" << YAML::Value << o.server_label << YAML::Key << "operator"
              << YAML::Value << "NotIn" << YAML::Key << "values" << YAML::Value;
            emit_list(y, {o.name});
            y << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
        }
        y << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
        for (const auto& r : h.rules) {
            y << YAML::BeginMap;
            y << YAML::Key << "operations" << YAML::Value;
            emit_list(y, r.operations);
            y << YAML::Key << "apiGroups" << YAML::Value;
            emit_list(y, r.groups);
            y << YAML::Key << "apiVersions" << YAML::Value;
            emit_list(y, r.versions);
            y << YAML::Key << "resources" << YAML::Value;
            emit_list(y, r.resources);
            y << YAML::Key << "scope" << YAML::Value << YAML::DoubleQuoted << "*";
            y << YAML::EndMap;
        }
        y << YAML::EndSeq;
        y << YAML::Key << "clientConfig" << YAML::Value << YAML::BeginMap;
        if (!o.url.empty()) {
            std::string base = o.url;
            while (!base.empty() && base.back() == '/') base.pop_back();
            y << YAML::Key << "url" << YAML::Value << YAML::DoubleQuoted << base + h.path;
        } else {
            y << YAML::Key << "service" << YAML::Value << YAML::BeginMap;
            y << YAML::Key << "namespace" << YAML::Value << o.service_namespace;
            y << YAML::Key << "name" << YAML::Value << o.service_name;
            y << YAML::Key << "path" << YAML::Value << YAML::DoubleQuoted << h.path;
            y << YAML::Key << "port" << YAML::Value << o.service_port;
            y << YAML::EndMap;
        }
        if (!ca.empty()) y << YAML::Key << "caBundle" << YAML::Value << ca;
        y << YAML::EndMap;
        y << YAML::EndMap;
    }
    y << YAML::EndSeq << YAML::EndMap;
    return std::string(y.c_str()) + "\n";
}

}  // namespace

std::vector<PackageRules> admission_packages(Engine& engine, lang::Diagnostics& errors) {
    std::vector<PackageRules> out;
    for (auto& c : engine.compared_constants({kKindRef, kOperationRef}, errors)) {
        PackageRules p;
        std::string path = c.package.rfind("data.", 0) == 0 ? c.package.substr(5) : c.package;
        p.package = split_dots(path);
        for (const auto& r : {"deny", "violation", "warn"})
            if (c.rules.count(r)) p.validates = true;
        p.mutates = c.rules.count("patch") > 0;
        p.main = path == "system" && c.rules.count("main") > 0;
        p.kinds = std::move(c.values[kKindRef]);
        p.operations = std::move(c.values[kOperationRef]);
        if (p.validates || p.mutates || p.main) out.push_back(std::move(p));
    }
    return out;
}

bool build_webhook_configurations(const std::vector<PackageRules>& packages, const WebhookConfigOptions& o,
                                  std::vector<WebhookConfiguration>& out, std::string& error) {
    std::vector<Hook> validating, mutating;
    std::string suffix = o.name == "gavel" ? "gavel.dev" : o.name + ".gavel.dev";
    for (const auto& p : packages) {
        std::vector<Rule> rules;
        if (!rules_for(p, o, rules, error)) return false;
        std::vector<std::string> escaped;
        for (const auto& seg : p.package) escaped.push_back(escape_pointer_segment(seg));
        if (p.main) validating.push_back({"main." + suffix, "/", rules});
        if (p.validates) validating.push_back({dns_name(p.package) + ".validate." + suffix, "/validate/" + join(escaped, "/"), rules});
        if (p.mutates) mutating.push_back({dns_name(p.package) + ".mutate." + suffix, "/mutate/" + join(escaped, "/"), rules});
    }
    std::string name_suffix = o.static_manifests ? std::string(kStaticSuffix) : "";
    if (!validating.empty()) {
        std::string name = o.name + "-validating" + name_suffix;
        out.push_back({"ValidatingWebhookConfiguration", name, document("ValidatingWebhookConfiguration", name, validating, o, false)});
    }
    if (!mutating.empty()) {
        std::string name = o.name + "-mutating" + name_suffix;
        out.push_back({"MutatingWebhookConfiguration", name, document("MutatingWebhookConfiguration", name, mutating, o, true)});
    }
    return true;
}

bool build_gatekeeper_configuration(const std::vector<GatekeeperKinds>& kinds, const WebhookConfigOptions& o,
                                    std::vector<WebhookConfiguration>& out, std::string& error) {
    if (kinds.empty()) return true;
    std::vector<std::string> operations = o.default_operations;
    std::vector<Rule> rules;
    bool everything = false;
    std::map<std::pair<std::string, std::string>, std::set<std::string>> by_group;
    for (const auto& k : kinds) {
        bool any_kind = k.kinds.empty() || std::find(k.kinds.begin(), k.kinds.end(), "*") != k.kinds.end();
        if (any_kind) {
            everything = true;
            continue;
        }
        for (const auto& kind : k.kinds) {
            auto r = resource_for_kind(kind, o.resources);
            if (!r) {
                error = "constraint kind " + kind + " is not a built-in Kubernetes kind: give --resource " + kind +
                        "=GROUP/VERSION/RESOURCE";
                return false;
            }
            by_group[{r->group, r->version}].insert(r->resource);
        }
    }
    if (everything) {
        if (!o.all_resources) {
            error = "a constraint matches every kind (no match.kinds, or \"*\"), so the webhook would receive every "
                    "resource (resources: [\"*\"]); name the kinds in match.kinds, or give --all-resources";
            return false;
        }
        rules.push_back({operations, {"*"}, {"*"}, {"*"}});
    } else {
        for (const auto& [gv, resources] : by_group)
            rules.push_back({operations, {gv.first}, {gv.second}, {resources.begin(), resources.end()}});
    }
    std::string suffix = o.name == "gavel" ? "gavel.dev" : o.name + ".gavel.dev";
    std::string name = o.name + "-gatekeeper" + (o.static_manifests ? std::string(kStaticSuffix) : "");
    std::vector<Hook> hooks = {{"gatekeeper.validate." + suffix, "/gatekeeper", rules}};
    out.push_back({"ValidatingWebhookConfiguration", name, document("ValidatingWebhookConfiguration", name, hooks, o, false)});
    return true;
}

std::string join_documents(const std::vector<WebhookConfiguration>& configurations) {
    std::string out;
    for (const auto& c : configurations) {
        if (!out.empty()) out += "---\n";
        out += c.yaml;
    }
    return out;
}

std::string static_manifest_subdir(const WebhookConfiguration& c) {
    return c.kind == "MutatingWebhookConfiguration" ? "mutating" : "validating";
}

bool validate_static_manifests(const std::vector<WebhookConfiguration>& configurations, std::string& error) {
    std::set<std::pair<std::string, std::string>> names;  // (kind, name)
    for (const auto& c : configurations) {
        YAML::Node doc;
        try {
            doc = YAML::Load(c.yaml);
        } catch (const YAML::Exception& e) {
            error = c.name + ": not YAML: " + e.what();
            return false;
        }
        auto str = [](const YAML::Node& n) { return n && n.IsScalar() ? n.as<std::string>() : std::string(); };
        std::string kind = str(doc["kind"]);
        std::string name = str(doc["metadata"]["name"]);
        std::string where = kind + " " + name;
        if (str(doc["apiVersion"]) != "admissionregistration.k8s.io/v1" ||
            (kind != "ValidatingWebhookConfiguration" && kind != "MutatingWebhookConfiguration")) {
            error = where + ": only admissionregistration.k8s.io/v1 Validating/MutatingWebhookConfiguration go in a webhook staticManifestsDir";
            return false;
        }
        if (name.empty() || !ends_with(name, kStaticSuffix) || name.size() == kStaticSuffix.size()) {
            error = where + ": the name must end with " + std::string(kStaticSuffix);
            return false;
        }
        if (!names.insert({kind, name}).second) {
            error = where + ": duplicate name";
            return false;
        }
        const YAML::Node hooks = doc["webhooks"];
        if (!hooks || !hooks.IsSequence() || hooks.size() == 0) {
            error = where + ": no webhooks";
            return false;
        }
        std::set<std::string> hook_names;
        for (const auto& h : hooks) {
            std::string hook = str(h["name"]);
            if (hook.empty() || !hook_names.insert(hook).second) {
                error = where + ": webhook names must be present and unique (" + hook + ")";
                return false;
            }
            const YAML::Node cc = h["clientConfig"];
            if (!cc || cc["service"]) {
                error = where + ": webhook " + hook + ": clientConfig.service is not allowed in a static manifest (give --url)";
                return false;
            }
            if (str(cc["url"]).rfind("https://", 0) != 0) {
                error = where + ": webhook " + hook + ": clientConfig.url (https://) is required";
                return false;
            }
            if (str(cc["caBundle"]).empty()) {
                error = where + ": webhook " + hook + ": caBundle is required (give --ca-bundle)";
                return false;
            }
            if (str(h["sideEffects"]).empty() || !h["admissionReviewVersions"]) {
                error = where + ": webhook " + hook + ": sideEffects and admissionReviewVersions are required";
                return false;
            }
        }
    }
    return true;
}

}  // namespace gavel::webhook
