// gavel webhook-config: prints the Validating/MutatingWebhookConfiguration
// manifests that send admission requests to `gavel serve` for the policies in
// the given directories (see webhook/webhook_config.hpp for how packages map
// to webhooks), or writes them for a kube-apiserver staticManifestsDir (--static).

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "runtime/file_read.hpp"
#include "engine/engine.hpp"
#include "engine/gatekeeper/gatekeeper.hpp"
#include "engine/loader.hpp"
#include "webhook/webhook_config.hpp"

namespace gavel::cli {

namespace {

struct WebhookConfigCliOptions {
    std::vector<std::string> policies;
    std::vector<std::string> gatekeeper;  // directories of templates and constraints
    std::string url;
    std::string service;  // NS/NAME
    int port = 443;
    std::string ca_bundle;
    std::string name = "gavel";
    std::string own_namespace;
    std::string failure_policy = "Fail";
    std::string mutating_failure_policy = "Ignore";
    int timeout_seconds = 10;
    std::string ignore_label;
    std::string inject_ca_from;
    std::vector<std::string> resources;
    bool all_resources = false;
    bool v0_compatible = false;
    std::string static_dir;
};

int config_error(const std::string& message) {
    std::cerr << "gavel webhook-config: " << message << "\n";
    return 1;
}

// Writes DIR/validating/NAME.yaml and DIR/mutating/NAME.yaml, one object per file:
// each webhook admission plugin has a staticManifestsDir of its own.
int write_static(const std::string& dir, const std::vector<webhook::WebhookConfiguration>& configs) {
    namespace fs = std::filesystem;
    for (const auto& c : configs) {
        fs::path sub = fs::path(dir) / webhook::static_manifest_subdir(c);
        std::error_code ec;
        fs::create_directories(sub, ec);
        if (ec) return config_error("cannot create " + sub.string() + ": " + ec.message());
        // Written next to the target and renamed, as the KEP asks (the API server watches the directory).
        fs::path target = sub / (c.name + ".yaml");
        fs::path tmp = sub / ("." + c.name + ".yaml.tmp");
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            out << c.yaml;
            if (!out) return config_error("cannot write " + tmp.string());
        }
        fs::rename(tmp, target, ec);
        if (ec) return config_error("cannot write " + target.string() + ": " + ec.message());
        std::cout << target.string() << "\n";
    }
    return 0;
}

int run_webhook_config(const WebhookConfigCliOptions& o) {
    webhook::WebhookConfigOptions w;
    if (o.url.empty() == o.service.empty()) return config_error("give exactly one of --url and --service NS/NAME");
    if (!o.url.empty()) {
        if (o.url.rfind("https://", 0) != 0)
            return config_error("--url must start with https:// (the API server only calls HTTPS webhooks)");
        w.url = o.url;
        w.own_namespace = o.own_namespace.empty() ? "gavel" : o.own_namespace;
    } else {
        auto slash = o.service.find('/');
        if (slash == std::string::npos || slash == 0 || slash + 1 == o.service.size())
            return config_error("--service must be NAMESPACE/NAME");
        w.service_namespace = o.service.substr(0, slash);
        w.service_name = o.service.substr(slash + 1);
        w.service_port = o.port;
        w.own_namespace = o.own_namespace.empty() ? w.service_namespace : o.own_namespace;
    }
    for (const auto* p : {&o.failure_policy, &o.mutating_failure_policy})
        if (*p != "Fail" && *p != "Ignore")
            return config_error("--failure-policy and --mutating-failure-policy must be Fail or Ignore");
    if (o.timeout_seconds < 1 || o.timeout_seconds > 30) return config_error("--timeout must be 1..30 seconds");
    w.name = o.name;
    w.failure_policy = o.failure_policy;
    w.mutating_failure_policy = o.mutating_failure_policy;
    w.timeout_seconds = o.timeout_seconds;
    w.ignore_label = o.ignore_label;
    w.inject_ca_from = o.inject_ca_from;
    w.all_resources = o.all_resources;
    w.static_manifests = !o.static_dir.empty();
    for (const auto& flag : o.resources) {
        std::string kind, error;
        webhook::ApiResource r;
        if (!webhook::parse_resource_flag(flag, kind, r, error)) return config_error(error);
        w.resources[kind] = r;
    }
    if (!o.ca_bundle.empty()) {
        runtime::FileRead read = runtime::read_whole_file(o.ca_bundle);
        if (!read.ok) return config_error(read.message);
        w.ca_bundle_pem = std::move(read.text);
    }
    if (w.static_manifests && !o.inject_ca_from.empty())
        return config_error("--static: a static manifest has no cert-manager injection; give --ca-bundle");

    if (o.policies.empty() && o.gatekeeper.empty()) return config_error("give --policies, --gatekeeper, or both");
    std::vector<webhook::WebhookConfiguration> configs;
    std::string error;
    if (!o.policies.empty()) {
        EngineOptions eo;
        eo.v0_compatible = o.v0_compatible;
        Engine engine(eo);
        engine::LoadOptions lo;
        lo.v0_compatible = o.v0_compatible;
        lang::Diagnostics errors = engine::load_into(engine, o.policies, lo);
        std::vector<webhook::PackageRules> packages;
        if (errors.empty()) packages = webhook::admission_packages(engine, errors);
        if (!errors.empty()) {
            std::cerr << "gavel webhook-config: the policies do not compile:\n";
            for (const auto& d : errors) std::cerr << "  " << engine::describe(d) << "\n";
            return 1;
        }
        if (!webhook::build_webhook_configurations(packages, w, configs, error)) return config_error(error);
        if (configs.empty()) return config_error("no package defines deny, violation, warn, patch or system.main");
    }
    if (!o.gatekeeper.empty()) {
        // The constraints' match.kinds: what the /gatekeeper webhook must receive.
        auto files = gatekeeper::read_object_paths(o.gatekeeper);
        gatekeeper::PolicySetBuilder builder;
        lang::Diagnostics errors = files.errors;
        std::vector<std::string> unsupported;
        builder.add_objects(files.objects, errors, &unsupported, false);
        auto set = builder.build(errors);
        for (const auto& d : errors) std::cerr << "gavel webhook-config: " << d.message << "\n";
        if (!errors.empty()) return 1;
        std::vector<webhook::GatekeeperKinds> kinds;
        for (const auto& [kind, entry] : set->entries())
            for (const auto& c : entry.constraints) {
                if (c->match.kinds.empty()) kinds.push_back({});
                for (const auto& k : c->match.kinds) kinds.push_back({k.api_groups, k.kinds});
            }
        if (kinds.empty()) return config_error("no Gatekeeper constraints in " + o.gatekeeper.front());
        if (!webhook::build_gatekeeper_configuration(kinds, w, configs, error)) return config_error(error);
    }
    if (w.static_manifests) {
        if (!webhook::validate_static_manifests(configs, error)) return config_error("--static: " + error);
        return write_static(o.static_dir, configs);
    }
    std::cout << webhook::join_documents(configs);
    return 0;
}

}  // namespace

void add_webhook_config_command(CLI::App& app) {
    auto opts = std::make_shared<WebhookConfigCliOptions>();
    auto* cmd = app.add_subcommand("webhook-config", "Print webhook configuration manifests for gavel serve");
    cmd->add_option("--policies", opts->policies, "Policy files or directories");
    cmd->add_option(
        "--gatekeeper", opts->gatekeeper,
        "Directories of Gatekeeper templates and constraints: a webhook at /gatekeeper for their match.kinds");
    cmd->add_option("--url", opts->url, "The server's base URL (https://host:port)");
    cmd->add_option("--service", opts->service, "The server's Service as NAMESPACE/NAME");
    cmd->add_option("--port", opts->port, "The Service port")->capture_default_str();
    cmd->add_option("--ca-bundle", opts->ca_bundle, "PEM file for caBundle (e.g. from gavel serve --ca-dump)");
    cmd->add_option("--name", opts->name,
                    "Name prefix of the configurations; gavel's Pods carry app.kubernetes.io/name=NAME")
        ->capture_default_str();
    cmd->add_option("--namespace", opts->own_namespace,
                    "gavel's own namespace, never sent (default: the Service's, else gavel)");
    cmd->add_option("--failure-policy", opts->failure_policy, "Validating webhooks: Fail or Ignore")
        ->capture_default_str();
    cmd->add_option("--mutating-failure-policy", opts->mutating_failure_policy, "Mutating webhooks: Fail or Ignore")
        ->capture_default_str();
    cmd->add_option("--timeout", opts->timeout_seconds, "timeoutSeconds")->capture_default_str();
    cmd->add_option("--ignore-label", opts->ignore_label, "Namespaces with this label are not sent either");
    cmd->add_option("--inject-ca-from", opts->inject_ca_from,
                    "NAMESPACE/CERTIFICATE for cert-manager's CA injector (instead of --ca-bundle)");
    cmd->add_option(
        "--resource", opts->resources,
        "KIND=GROUP/VERSION/RESOURCE[,cluster] (core: KIND=v1/RESOURCE): a kind the table lacks, or an override");
    cmd->add_flag("--all-resources", opts->all_resources,
                  "Send every resource (resources: [\"*\"]) to packages whose rules name no kind");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse the pre-1.0 Rego dialect");
    cmd->add_option(
        "--static", opts->static_dir,
        "Write KEP-5793 static manifests (names *.static.k8s.io, --url only) into DIR/validating and DIR/mutating");
    cmd->callback([opts] { exit_status() = run_webhook_config(*opts); });
}

}  // namespace gavel::cli
