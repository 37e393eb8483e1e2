#include "webhook/webhook_config.hpp"

#include <yaml.h>

#include "support/base64.hpp"

#include <cctype>
#include <tuple>

#include "lang/yaml_node.hpp"
#include "runtime/yaml_scalar.hpp"

#include "webhook/admission.hpp"
#include "webhook/json_patch.hpp"
#include "webhook/value_text.hpp"

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

// A YAML document written through libyaml's emitter: block mappings, flow
// lists of double-quoted strings, and plain scalars where they read back as
// the same strings.
class YamlWriter {
public:
    YamlWriter() {
        yaml_emitter_initialize(&emitter_);
        yaml_emitter_set_output(&emitter_, &YamlWriter::write, this);
        yaml_emitter_set_indent(&emitter_, 2);
        yaml_emitter_set_width(&emitter_, -1);  // never fold long lines (caBundle)
        yaml_emitter_set_unicode(&emitter_, 1);
        yaml_event_t e;
        yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING);
        emit(e);
        yaml_document_start_event_initialize(&e, nullptr, nullptr, nullptr, 1);
        emit(e);
    }
    ~YamlWriter() { yaml_emitter_delete(&emitter_); }
    YamlWriter(const YamlWriter&) = delete;
    YamlWriter& operator=(const YamlWriter&) = delete;

    YamlWriter& begin_map() {
        yaml_event_t e;
        yaml_mapping_start_event_initialize(&e, nullptr, nullptr, 1, YAML_BLOCK_MAPPING_STYLE);
        return emit(e);
    }
    YamlWriter& end_map() {
        yaml_event_t e;
        yaml_mapping_end_event_initialize(&e);
        return emit(e);
    }
    YamlWriter& begin_list() {
        yaml_event_t e;
        yaml_sequence_start_event_initialize(&e, nullptr, nullptr, 1, YAML_BLOCK_SEQUENCE_STYLE);
        return emit(e);
    }
    YamlWriter& end_list() {
        yaml_event_t e;
        yaml_sequence_end_event_initialize(&e);
        return emit(e);
    }
    // A string: plain where it reads back as this string (the emitter quotes it
    // when YAML's syntax needs it; here, too, when it would read as a boolean,
    // number or null), double-quoted when `quoted`.
    YamlWriter& scalar(std::string_view text, bool quoted = false) {
        if (!quoted) {
            runtime::YamlScalar r = runtime::resolve_plain_yaml_scalar(text);
            quoted = r.error || !r.value.is_string();
        }
        return write_scalar(text, quoted);
    }
    YamlWriter& number_field(std::string_view key, int value) {
        return scalar(key).write_scalar(std::to_string(value), false);
    }
    YamlWriter& write_scalar(std::string_view text, bool quoted) {
        yaml_event_t e;
        yaml_scalar_event_initialize(&e, nullptr, nullptr, reinterpret_cast<const yaml_char_t*>(text.data()),
                                     static_cast<int>(text.size()), 1, 1,
                                     quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
        return emit(e);
    }
    YamlWriter& field(std::string_view key, std::string_view value, bool quoted = false) {
        return scalar(key).scalar(value, quoted);
    }
    // key: ["a", "b"]
    YamlWriter& list_field(std::string_view key, const std::vector<std::string>& items) {
        scalar(key);
        yaml_event_t e;
        yaml_sequence_start_event_initialize(&e, nullptr, nullptr, 1, YAML_FLOW_SEQUENCE_STYLE);
        emit(e);
        for (const auto& i : items) scalar(i, true);
        return end_list();
    }

    std::string finish() {
        yaml_event_t e;
        end_map();
        yaml_document_end_event_initialize(&e, 1);
        emit(e);
        yaml_stream_end_event_initialize(&e);
        emit(e);
        return std::move(out_);
    }

private:
    static int write(void* self, unsigned char* buffer, size_t size) {
        static_cast<YamlWriter*>(self)->out_.append(reinterpret_cast<const char*>(buffer), size);
        return 1;
    }
    // The events are built here from known text: libyaml refuses none of them.
    YamlWriter& emit(yaml_event_t& e) {
        yaml_emitter_emit(&emitter_, &e);
        return *this;
    }

    yaml_emitter_t emitter_{};
    std::string out_;
};

std::string document(std::string_view kind, const std::string& name, const std::vector<Hook>& hooks,
                     const WebhookConfigOptions& o, bool mutating) {
    std::string ca = o.ca_bundle_pem.empty() ? "" : support::base64_encode(o.ca_bundle_pem);
    YamlWriter y;
    y.begin_map();
    y.field("apiVersion", "admissionregistration.k8s.io/v1").field("kind", kind);
    y.scalar("metadata").begin_map().field("name", name);
    y.scalar("labels").begin_map().field("app.kubernetes.io/managed-by", "gavel").end_map();
    if (!o.inject_ca_from.empty())
        y.scalar("annotations").begin_map().field("cert-manager.io/inject-ca-from", o.inject_ca_from).end_map();
    y.end_map();
    y.scalar("webhooks").begin_list();
    for (const auto& h : hooks) {
        y.begin_map();
        y.field("name", h.name);
        y.list_field("admissionReviewVersions", {"v1", "v1beta1"});
        y.field("sideEffects", "None");
        y.field("failurePolicy", mutating ? o.mutating_failure_policy : o.failure_policy);
        y.field("matchPolicy", "Equivalent");
        y.number_field("timeoutSeconds", o.timeout_seconds);
        if (mutating) y.field("reinvocationPolicy", "Never");
        // Never the control plane's own namespaces nor gavel's: a gavel that is down must
        // not stop the cluster from scheduling gavel again.
        std::vector<std::string> excluded = o.excluded_namespaces;
        if (!o.own_namespace.empty()) excluded.push_back(o.own_namespace);
        y.scalar("namespaceSelector").begin_map().scalar("matchExpressions").begin_list();
        y.begin_map()
            .field("key", "kubernetes.io/metadata.name")
            .field("operator", "NotIn")
            .list_field("values", excluded)
            .end_map();
        if (!o.ignore_label.empty())
            y.begin_map().field("key", o.ignore_label).field("operator", "DoesNotExist").end_map();
        y.end_list().end_map();
        if (!o.server_label.empty()) {
            y.scalar("objectSelector").begin_map().scalar("matchExpressions").begin_list();
            y.begin_map()
                .field("key", o.server_label)
                .field("operator", "NotIn")
                .list_field("values", {o.name})
                .end_map();
            y.end_list().end_map();
        }
        y.scalar("rules").begin_list();
        for (const auto& r : h.rules) {
            y.begin_map();
            y.list_field("operations", r.operations);
            y.list_field("apiGroups", r.groups);
            y.list_field("apiVersions", r.versions);
            y.list_field("resources", r.resources);
            y.field("scope", "*", true);
            y.end_map();
        }
        y.end_list();
        y.scalar("clientConfig").begin_map();
        if (!o.url.empty()) {
            std::string base = o.url;
            while (!base.empty() && base.back() == '/') base.pop_back();
            y.field("url", base + h.path, true);
        } else {
            y.scalar("service").begin_map();
            y.field("namespace", o.service_namespace).field("name", o.service_name);
            y.field("path", h.path, true).number_field("port", o.service_port);
            y.end_map();
        }
        if (!ca.empty()) y.field("caBundle", ca);
        y.end_map();
        y.end_map();
    }
    y.end_list();
    return y.finish();
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
        if (p.validates)
            validating.push_back(
                {dns_name(p.package) + ".validate." + suffix, "/validate/" + join(escaped, "/"), rules});
        if (p.mutates)
            mutating.push_back({dns_name(p.package) + ".mutate." + suffix, "/mutate/" + join(escaped, "/"), rules});
    }
    std::string name_suffix = o.static_manifests ? std::string(kStaticSuffix) : "";
    if (!validating.empty()) {
        std::string name = o.name + "-validating" + name_suffix;
        out.push_back({"ValidatingWebhookConfiguration", name,
                       document("ValidatingWebhookConfiguration", name, validating, o, false)});
    }
    if (!mutating.empty()) {
        std::string name = o.name + "-mutating" + name_suffix;
        out.push_back(
            {"MutatingWebhookConfiguration", name, document("MutatingWebhookConfiguration", name, mutating, o, true)});
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
            error =
                "a constraint matches every kind (no match.kinds, or \"*\"), so the webhook would receive every "
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
    out.push_back(
        {"ValidatingWebhookConfiguration", name, document("ValidatingWebhookConfiguration", name, hooks, o, false)});
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
        lang::yaml::Documents read = lang::yaml::read_documents(c.yaml, lang::yaml::ErrorDialect::GoYamlV2, {}, 1);
        if (!read.ok || read.documents.empty()) {
            error = c.name + ": not YAML: " + read.error;
            return false;
        }
        using Node = lang::yaml::Node;
        const Node& doc = *read.documents.front();
        // A member of a mapping (nullptr when `n` is none or not a mapping), and a scalar's text.
        auto get = [](const Node* n, std::string_view key) { return n && n->is_mapping() ? n->get(key) : nullptr; };
        auto str = [](const Node* n) { return n && n->is_scalar() && !n->is_null() ? n->text : std::string(); };
        std::string kind = str(get(&doc, "kind"));
        std::string name = str(get(get(&doc, "metadata"), "name"));
        std::string where = kind + " " + name;
        if (str(get(&doc, "apiVersion")) != "admissionregistration.k8s.io/v1" ||
            (kind != "ValidatingWebhookConfiguration" && kind != "MutatingWebhookConfiguration")) {
            error = where +
                    ": only admissionregistration.k8s.io/v1 Validating/MutatingWebhookConfiguration go in a webhook "
                    "staticManifestsDir";
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
        const Node* hooks = get(&doc, "webhooks");
        if (!hooks || !hooks->is_sequence() || hooks->items.empty()) {
            error = where + ": no webhooks";
            return false;
        }
        std::set<std::string> hook_names;
        for (const auto& item : hooks->items) {
            const Node* h = item.get();
            std::string hook = str(get(h, "name"));
            if (hook.empty() || !hook_names.insert(hook).second) {
                error = where + ": webhook names must be present and unique (" + hook + ")";
                return false;
            }
            const Node* cc = get(h, "clientConfig");
            if (!cc || get(cc, "service")) {
                error = where + ": webhook " + hook +
                        ": clientConfig.service is not allowed in a static manifest (give --url)";
                return false;
            }
            if (str(get(cc, "url")).rfind("https://", 0) != 0) {
                error = where + ": webhook " + hook + ": clientConfig.url (https://) is required";
                return false;
            }
            if (str(get(cc, "caBundle")).empty()) {
                error = where + ": webhook " + hook + ": caBundle is required (give --ca-bundle)";
                return false;
            }
            if (str(get(h, "sideEffects")).empty() || !get(h, "admissionReviewVersions")) {
                error = where + ": webhook " + hook + ": sideEffects and admissionReviewVersions are required";
                return false;
            }
        }
    }
    return true;
}

}  // namespace gavel::webhook
