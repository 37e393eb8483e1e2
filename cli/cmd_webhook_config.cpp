// gavel webhook-config: prints the Validating/MutatingWebhookConfiguration
// manifests that send admission requests to `gavel serve` for the policies in
// the given directories (see webhook/webhook_config.hpp for how packages map
// to webhooks).

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/rego_files.hpp"
#include "engine/gatekeeper/gatekeeper.hpp"
#include "webhook/webhook_config.hpp"

namespace gavel::cli {

namespace {

struct WebhookConfigCliOptions {
    std::vector<std::string> policies;
    std::vector<std::string> gatekeeper;
    std::string url;
    std::string service;  // NS/NAME
    int port = 443;
    std::string ca_bundle;
    std::string name = "gavel";
    std::string failure_policy = "Fail";
    int timeout_seconds = 10;
    std::string ignore_label = "gavel.dev/ignore";
    std::string inject_ca_from;
};

int run_webhook_config(const WebhookConfigCliOptions& o) {
    webhook::WebhookConfigOptions w;
    if (o.url.empty() == o.service.empty()) {
        std::cerr << "gavel webhook-config: give exactly one of --url and --service NS/NAME\n";
        return 1;
    }
    if (!o.url.empty()) {
        if (o.url.rfind("https://", 0) != 0) {
            std::cerr << "gavel webhook-config: --url must start with https:// (the API server only calls HTTPS webhooks)\n";
            return 1;
        }
        w.url = o.url;
    } else {
        auto slash = o.service.find('/');
        if (slash == std::string::npos || slash == 0 || slash + 1 == o.service.size()) {
            std::cerr << "gavel webhook-config: --service must be NAMESPACE/NAME\n";
            return 1;
        }
        w.service_namespace = o.service.substr(0, slash);
        w.service_name = o.service.substr(slash + 1);
        w.service_port = o.port;
    }
    if (o.failure_policy != "Fail" && o.failure_policy != "Ignore") {
        std::cerr << "gavel webhook-config: --failure-policy must be Fail or Ignore\n";
        return 1;
    }
    if (o.timeout_seconds < 1 || o.timeout_seconds > 30) {
        std::cerr << "gavel webhook-config: --timeout must be 1..30 seconds\n";
        return 1;
    }
    w.name = o.name;
    w.failure_policy = o.failure_policy;
    w.timeout_seconds = o.timeout_seconds;
    w.ignore_label = o.ignore_label;
    w.inject_ca_from = o.inject_ca_from;
    if (!o.ca_bundle.empty()) {
        std::string error;
        if (!read_file(o.ca_bundle, w.ca_bundle_pem, error)) {
            std::cerr << "gavel webhook-config: " << error << "\n";
            return 1;
        }
    }
    if (o.policies.empty() && o.gatekeeper.empty()) {
        std::cerr << "gavel webhook-config: give --policies, --gatekeeper, or both\n";
        return 1;
    }
    std::string gatekeeper_yaml;
    if (!o.gatekeeper.empty()) {
        auto files = gatekeeper::read_object_paths(o.gatekeeper);
        gatekeeper::PolicySetBuilder builder;
        lang::Diagnostics errors = files.errors;
        std::vector<std::string> unsupported;
        builder.add_objects(files.objects, errors, &unsupported, false);
        auto set = builder.build(errors);
        for (const auto& d : errors) std::cerr << "gavel webhook-config: " << d.message << "\n";
        if (!errors.empty()) return 1;
        std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> kinds;
        bool all = false;
        for (const auto& [kind, entry] : set->entries())
            for (const auto& c : entry.constraints) {
                if (c->match.kinds.empty()) all = true;
                for (const auto& k : c->match.kinds) kinds.emplace_back(k.api_groups, k.kinds);
            }
        gatekeeper_yaml = webhook::gatekeeper_webhook_config_yaml(webhook::gatekeeper_rules(kinds, all), w);
        if (gatekeeper_yaml.empty()) {
            std::cerr << "gavel webhook-config: no Gatekeeper constraints in " << o.gatekeeper.front() << "\n";
            return 1;
        }
        if (o.policies.empty()) {
            std::cout << gatekeeper_yaml;
            return 0;
        }
    }
    FileList files = find_rego_files(o.policies);
    for (const auto& e : files.errors) std::cerr << "gavel webhook-config: " << e << "\n";
    if (!files.errors.empty()) return 1;
    std::map<std::string, std::string> texts;
    for (const auto& f : files.files) {
        std::string text, error;
        if (!read_file(f, text, error)) {
            std::cerr << "gavel webhook-config: " << error << "\n";
            return 1;
        }
        texts[f] = std::move(text);
    }
    auto packages = webhook::scan_policies(texts);
    std::string yaml = webhook::webhook_config_yaml(packages, w);
    if (yaml.empty()) {
        std::cerr << "gavel webhook-config: no package defines deny, violation, warn, patch or system.main\n";
        return 1;
    }
    std::cout << yaml;
    if (!gatekeeper_yaml.empty()) std::cout << "---\n" << gatekeeper_yaml;
    return 0;
}

}  // namespace

void add_webhook_config_command(CLI::App& app) {
    auto opts = std::make_shared<WebhookConfigCliOptions>();
    auto* cmd = app.add_subcommand("webhook-config", "Print webhook configuration manifests for gavel serve");
    cmd->add_option("--policies", opts->policies, "Policy files or directories");
    cmd->add_option("--gatekeeper", opts->gatekeeper,
                    "Directories of Gatekeeper templates and constraints: a webhook at /gatekeeper for their match.kinds");
    cmd->add_option("--url", opts->url, "The server's base URL (https://host:port)");
    cmd->add_option("--service", opts->service, "The server's Service as NAMESPACE/NAME");
    cmd->add_option("--port", opts->port, "The Service port")->capture_default_str();
    cmd->add_option("--ca-bundle", opts->ca_bundle, "PEM file for caBundle (e.g. from gavel serve --ca-dump)");
    cmd->add_option("--name", opts->name, "Name prefix of the configurations")->capture_default_str();
    cmd->add_option("--failure-policy", opts->failure_policy, "Fail or Ignore")->capture_default_str();
    cmd->add_option("--timeout", opts->timeout_seconds, "timeoutSeconds")->capture_default_str();
    cmd->add_option("--ignore-label", opts->ignore_label, "Namespaces with this label are not sent")->capture_default_str();
    cmd->add_option("--inject-ca-from", opts->inject_ca_from,
                    "NAMESPACE/CERTIFICATE for cert-manager's CA injector (instead of --ca-bundle)");
    cmd->callback([opts] { exit_status() = run_webhook_config(*opts); });
}

}  // namespace gavel::cli
