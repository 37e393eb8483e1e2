// webhook-config: kinds and operations from the compiled rules
// (engine/compared_constants), the resource table, the YAML and KEP-5793's
// static manifest rules.

#include <doctest/doctest.h>

#include "engine/engine.hpp"
#include "runtime/json.hpp"
#include "runtime/yaml.hpp"
#include "webhook/kubernetes_resources.hpp"
#include "webhook/webhook_config.hpp"

namespace wh = gavel::webhook;

namespace {

std::vector<wh::PackageRules> packages_of(const std::vector<std::pair<std::string, std::string>>& modules) {
    gavel::Engine engine;
    for (const auto& [file, text] : modules) REQUIRE(engine.add_policy(file, text).empty());
    gavel::lang::Diagnostics errors;
    auto out = wh::admission_packages(engine, errors);
    REQUIRE(errors.empty());
    return out;
}

// The JSON text of the value at a dotted path ("webhooks.0.name") of a YAML document.
std::string at(const std::string& yaml, std::string_view path) {
    auto parsed = gavel::runtime::parse_yaml(yaml);
    REQUIRE_MESSAGE(parsed.ok, parsed.error.message);
    const gavel::runtime::Value* v = &parsed.value;
    while (!path.empty() && v) {
        auto dot = path.find('.');
        std::string part(path.substr(0, dot));
        path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
        if (v->is_array()) {
            std::size_t i = std::stoul(part);
            v = i < v->array_elements().size() ? &v->array_elements()[i] : nullptr;
        } else {
            v = v->find(part);
        }
    }
    return v ? gavel::runtime::to_json(*v) : "<none>";
}

std::set<std::string> kinds_of(const std::string& body) {
    auto p = packages_of({{"p.rego", "package k\n\nimport rego.v1\n\n" + body}});
    REQUIRE(p.size() == 1);
    return p[0].kinds;
}

using Set = std::set<std::string>;

}  // namespace

TEST_CASE("webhook-config: kinds come from the compiled rules") {
    CHECK(kinds_of("deny contains 1 if input.request.kind.kind == \"Pod\"\n") == Set{"Pod"});
    CHECK(kinds_of("deny contains 1 if \"Service\" == input.request.kind.kind\n") == Set{"Service"});
    CHECK(kinds_of("deny contains 1 if input.request.kind.kind = \"Pod\"\n") == Set{"Pod"});
    CHECK(kinds_of("deny contains 1 if input.request.kind.kind in {\"Pod\", \"Deployment\"}\n") ==
          Set{"Deployment", "Pod"});
    CHECK(kinds_of("deny contains 1 if input.request.kind.kind in [\"Job\"]\n") == Set{"Job"});
    // Through local variables and some-in.
    CHECK(kinds_of("deny contains 1 if {\n  k := input.request.kind.kind\n  k == \"Ingress\"\n}\n") == Set{"Ingress"});
    CHECK(kinds_of("deny contains 1 if {\n  kinds := {\"CronJob\"}\n  input.request.kind.kind in kinds\n}\n") ==
          Set{"CronJob"});
    CHECK(kinds_of(
              "deny contains 1 if {\n  some k in [\"Secret\", \"ConfigMap\"]\n  input.request.kind.kind == k\n}\n") ==
          Set{"ConfigMap", "Secret"});
    CHECK(kinds_of("deny contains 1 if {\n  r := input.request\n  r.kind.kind == \"Node\"\n}\n")
              .empty());  // not followed
    // Imports are resolved by the compiler.
    CHECK(kinds_of("import input.request.kind as k\n\ndeny contains 1 if k.kind == \"Namespace\"\n") ==
          Set{"Namespace"});
    // Helper rules of the package count; negations and non-constants do not.
    CHECK(kinds_of("is_pod if input.request.kind.kind == \"Pod\"\n\ndeny contains 1 if is_pod\n") == Set{"Pod"});
    CHECK(kinds_of("deny contains 1 if not input.request.kind.kind == \"Pod\"\n").empty());
    CHECK(kinds_of("deny contains 1 if input.request.kind.kind == data.kind\n").empty());
    CHECK(kinds_of("deny contains 1 if input.request.kind.kind != \"Pod\"\n").empty());
    // Inside comprehensions and every.
    CHECK(kinds_of("deny contains 1 if count([1 | input.request.kind.kind == \"Role\"]) > 0\n") == Set{"Role"});
}

TEST_CASE("webhook-config: operations and packages") {
    auto p = packages_of(
        {{"a.rego",
          "package kubernetes.admission\n\ndeny contains msg if {\n  input.request.kind.kind == \"Pod\"\n"
          "  input.request.operation in [\"CREATE\", \"DELETE\"]\n  msg := \"x\"\n}\n"},
         {"m.rego",
          "package kubernetes.mutating\n\npatch contains op if { input.request.kind.kind == \"Pod\"; op := 1 }\n"},
         {"s.rego", "package system\n\nmain := {} if input.request.kind.kind == \"Service\"\n"},
         {"lib.rego", "package lib\n\nf(x) := x\n"}});
    REQUIRE(p.size() == 3);
    CHECK(p[0].package == std::vector<std::string>{"kubernetes", "admission"});
    CHECK(p[0].validates);
    CHECK(p[0].operations == Set{"CREATE", "DELETE"});
    CHECK(p[1].mutates);
    CHECK(p[1].operations.empty());
    CHECK(p[2].main);
    // A v0 policy, through the engine's dialect option.
    gavel::EngineOptions eo;
    eo.v0_compatible = true;
    gavel::Engine v0(eo);
    REQUIRE(v0.add_policy("v0.rego", "package x\n\ndeny[msg] {\n  input.request.kind.kind == \"Pod\"\n  msg := 1\n}\n")
                .empty());
    gavel::lang::Diagnostics errors;
    auto q = wh::admission_packages(v0, errors);
    REQUIRE(q.size() == 1);
    CHECK(q[0].kinds == Set{"Pod"});
    // Compile errors come back.
    gavel::Engine broken;
    REQUIRE(broken.add_policy("b.rego", "package b\n\ndeny contains x if { y := 1 }\n").empty());
    CHECK(wh::admission_packages(broken, errors).empty());
    CHECK_FALSE(errors.empty());
}

TEST_CASE("webhook-config: the resource table and --resource") {
    CHECK(wh::builtin_resource("Endpoints") == wh::ApiResource{"", "v1", "endpoints", true});
    CHECK(wh::builtin_resource("Ingress") == wh::ApiResource{"networking.k8s.io", "v1", "ingresses", true});
    CHECK(wh::builtin_resource("NetworkPolicy")->resource == "networkpolicies");
    CHECK(wh::builtin_resource("Deployment")->group == "apps");
    CHECK(wh::builtin_resource("Namespace")->namespaced == false);
    CHECK_FALSE(wh::builtin_resource("Gateway"));
    std::string kind, error;
    wh::ApiResource r;
    REQUIRE(wh::parse_resource_flag("Widget=example.com/v1alpha1/widgets", kind, r, error));
    CHECK(kind == "Widget");
    CHECK(r == wh::ApiResource{"example.com", "v1alpha1", "widgets", true});
    REQUIRE(wh::parse_resource_flag("Pod=v1/pods,cluster", kind, r, error));
    CHECK(r == wh::ApiResource{"", "v1", "pods", false});
    CHECK_FALSE(wh::parse_resource_flag("Widget", kind, r, error));
    CHECK_FALSE(wh::parse_resource_flag("Widget=a/b/c/d", kind, r, error));
    CHECK_FALSE(wh::parse_resource_flag("Widget=Example.com/v1/widgets", kind, r, error));
    CHECK(wh::resource_for_kind("Widget", {{"Widget", wh::ApiResource{"x.io", "v1", "widgets", true}}})->group ==
          "x.io");
}

TEST_CASE("webhook-config: YAML") {
    auto packages = packages_of(
        {{"a.rego",
          "package kubernetes.admission\n\ndeny contains 1 if input.request.kind.kind in {\"Pod\", \"Ingress\", "
          "\"Service\"}\n"},
         {"m.rego", "package kubernetes.mutating\n\npatch contains 1 if input.request.kind.kind == \"Pod\"\n"}});
    wh::WebhookConfigOptions o;
    o.service_namespace = o.own_namespace = "policy";
    o.service_name = "gavel";
    o.ca_bundle_pem = "PEM";
    std::vector<wh::WebhookConfiguration> configs;
    std::string error;
    REQUIRE(wh::build_webhook_configurations(packages, o, configs, error));
    REQUIRE(configs.size() == 2);
    const std::string& v = configs[0].yaml;
    CHECK(at(v, "kind") == R"("ValidatingWebhookConfiguration")");
    CHECK(at(v, "metadata.name") == R"("gavel-validating")");
    CHECK(at(v, "webhooks.0.name") == R"("kubernetes-admission.validate.gavel.dev")");
    CHECK(at(v, "webhooks.0.failurePolicy") == R"("Fail")");
    CHECK(at(v, "webhooks.0.timeoutSeconds") == "10");
    CHECK(at(v, "webhooks.0.clientConfig.service.path") == R"("/validate/kubernetes/admission")");
    CHECK(at(v, "webhooks.0.clientConfig.service.port") == "443");
    CHECK(at(v, "webhooks.0.clientConfig.caBundle") == R"("UEVN")");
    // One rule per group: core (pods, services), networking.k8s.io (ingresses).
    CHECK(at(v, "webhooks.0.rules.2") == "<none>");
    CHECK(at(v, "webhooks.0.rules.0.apiGroups") == R"([""])");
    CHECK(at(v, "webhooks.0.rules.0.resources") == R"(["pods","services"])");
    CHECK(at(v, "webhooks.0.rules.1.apiGroups") == R"(["networking.k8s.io"])");
    CHECK(at(v, "webhooks.0.rules.1.resources") == R"(["ingresses"])");
    CHECK(at(v, "webhooks.0.rules.0.operations") == R"(["CREATE","UPDATE"])");
    // Never kube-system, kube-node-lease or gavel's own namespace; never gavel's own Pods.
    CHECK(
        at(v, "webhooks.0.namespaceSelector.matchExpressions.0") ==
        R"({"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["kube-system","kube-node-lease","policy"]})");
    CHECK(at(v, "webhooks.0.objectSelector.matchExpressions.0.values") == R"(["gavel"])");
    CHECK(at(configs[1].yaml, "webhooks.0.failurePolicy") == R"("Ignore")");
    CHECK(at(configs[1].yaml, "webhooks.0.reinvocationPolicy") == R"("Never")");
    CHECK(wh::join_documents(configs).find("\n---\n") != std::string::npos);
}

TEST_CASE("webhook-config: strings that would read back as another type are quoted") {
    auto packages = packages_of({{"a.rego", "package a\n\ndeny contains 1 if input.request.kind.kind == \"Pod\"\n"}});
    wh::WebhookConfigOptions o;
    o.service_namespace = "true";
    o.service_name = "0x10";
    o.own_namespace = "null";
    std::vector<wh::WebhookConfiguration> configs;
    std::string error;
    REQUIRE(wh::build_webhook_configurations(packages, o, configs, error));
    const std::string& y = configs[0].yaml;
    CHECK(y.find("namespace: \"true\"\n") != std::string::npos);
    CHECK(at(y, "webhooks.0.clientConfig.service.namespace") == R"("true")");
    CHECK(at(y, "webhooks.0.clientConfig.service.name") == R"("0x10")");
    CHECK(at(y, "webhooks.0.clientConfig.service.port") == "443");
    CHECK(at(y, "webhooks.0.namespaceSelector.matchExpressions.0.values") ==
          R"(["kube-system","kube-node-lease","null"])");
}

TEST_CASE("webhook-config: resources [\"*\"] only when asked for; unknown kinds") {
    auto any_kind = packages_of({{"a.rego", "package a\n\ndeny contains 1 if input.request.object.x\n"}});
    wh::WebhookConfigOptions o;
    o.url = "https://gavel.example:8443";
    std::vector<wh::WebhookConfiguration> configs;
    std::string error;
    CHECK_FALSE(wh::build_webhook_configurations(any_kind, o, configs, error));
    CHECK(error.find("--all-resources") != std::string::npos);
    o.all_resources = true;
    REQUIRE(wh::build_webhook_configurations(any_kind, o, configs, error));
    CHECK(at(configs[0].yaml, "webhooks.0.rules.0.resources") == R"(["*"])");

    auto widget = packages_of({{"w.rego", "package w\n\ndeny contains 1 if input.request.kind.kind == \"Widget\"\n"}});
    configs.clear();
    CHECK_FALSE(wh::build_webhook_configurations(widget, o, configs, error));
    CHECK(error.find("--resource Widget=") != std::string::npos);
    o.resources["Widget"] = wh::ApiResource{"example.com", "v1", "widgets", true};
    REQUIRE(wh::build_webhook_configurations(widget, o, configs, error));
    CHECK(at(configs[0].yaml, "webhooks.0.rules.0.apiGroups") == R"(["example.com"])");
    CHECK(at(configs[0].yaml, "webhooks.0.rules.0.resources") == R"(["widgets"])");
}

TEST_CASE("webhook-config: static manifests (KEP-5793)") {
    auto packages = packages_of({{"a.rego", "package a\n\ndeny contains 1 if input.request.kind.kind == \"Pod\"\n"},
                                 {"m.rego", "package m\n\npatch contains 1 if input.request.kind.kind == \"Pod\"\n"}});
    wh::WebhookConfigOptions o;
    o.url = "https://10.0.0.5:8443";
    o.ca_bundle_pem = "PEM";
    o.static_manifests = true;
    std::vector<wh::WebhookConfiguration> configs;
    std::string error;
    REQUIRE(wh::build_webhook_configurations(packages, o, configs, error));
    REQUIRE(configs.size() == 2);
    CHECK(configs[0].name == "gavel-validating.static.k8s.io");
    CHECK(wh::static_manifest_subdir(configs[0]) == "validating");
    CHECK(wh::static_manifest_subdir(configs[1]) == "mutating");
    CHECK(wh::validate_static_manifests(configs, error));

    auto broken = configs;
    broken[0].yaml.replace(broken[0].yaml.find("gavel-validating.static.k8s.io"), 30, "gavel-validating");
    CHECK_FALSE(wh::validate_static_manifests(broken, error));
    CHECK(error.find(".static.k8s.io") != std::string::npos);
    broken = {configs[0], configs[0]};
    CHECK_FALSE(wh::validate_static_manifests(broken, error));
    CHECK(error.find("duplicate") != std::string::npos);

    o.url.clear();
    o.service_namespace = "gavel";
    o.service_name = "gavel";
    configs.clear();
    REQUIRE(wh::build_webhook_configurations(packages, o, configs, error));
    CHECK_FALSE(wh::validate_static_manifests(configs, error));
    CHECK(error.find("clientConfig.service") != std::string::npos);
    o.url = "https://10.0.0.5:8443";
    o.ca_bundle_pem.clear();
    configs.clear();
    REQUIRE(wh::build_webhook_configurations(packages, o, configs, error));
    CHECK_FALSE(wh::validate_static_manifests(configs, error));
    CHECK(error.find("caBundle") != std::string::npos);
}
