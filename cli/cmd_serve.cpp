// gavel serve: the Kubernetes admission webhook and OPA's REST API. This file only
// turns flags into the server assembly's options (webhook/server_assembly.hpp).

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "cli/bundle_flags.hpp"
#include "cli/byte_size.hpp"
#include "cli/commands.hpp"
#include "stdlib/go_time.hpp"
#include "cli/version.hpp"
#include "webhook/kubernetes_resources.hpp"
#include "webhook/listen_address.hpp"
#include "webhook/log.hpp"
#include "webhook/server_assembly.hpp"

namespace gavel::cli {

namespace {

struct ServeCliOptions {
    std::vector<std::string> policies;
    std::vector<std::string> data;
    std::vector<std::string> gatekeeper;  // ConstraintTemplates and Constraints
    std::string addr = ":8443";
    std::string rest_addr = "127.0.0.1:8181";
    std::string diagnostic_addr = ":8282";
    std::string tls_cert, tls_key, client_ca, ca_dump;
    std::vector<std::string> tls_san = {"localhost", "127.0.0.1"};
    bool insecure_http = false;
    std::string decision = "data.system.main";
    std::string eval_timeout = "5s";
    std::string eval_memory_limit = "512Mi";
    bool fail_open = false;
    bool v0_compatible = false;
    unsigned threads = 0;
    unsigned eval_workers = 0;
    std::size_t eval_queue = 128;
    std::size_t rest_queue = 256;
    std::size_t max_body = 3u << 20;
    std::size_t rest_max_body = std::size_t(256) << 20;
    std::size_t max_connections = 512;
    std::string header_timeout = "10s", body_timeout = "10s", shutdown_grace = "30s", shutdown_wait = "0",
                reload_interval = "1s";
    std::string authentication = "off";
    std::string token_file;
    bool decision_log = false;
    std::string log_level = "info";
    std::string log_format = "json";
    bool input_http = false;
    // --manage-webhooks: gavel registers its own webhook configurations (webhook/managed_webhooks.hpp).
    std::string manage_webhooks;
    bool persistent_webhooks = false;
    std::string webhook_service = "gavel/gavel", webhook_url, webhook_ca_bundle;
    std::vector<std::string> webhook_resources;
    std::string config_file;           // -c: OPA's configuration file
    std::vector<std::string> set;      // --set k=v overrides
    std::vector<std::string> bundles;  // -b: bundle directories or .tar.gz files, loaded at start
    BundleVerifyFlags verify;
};

// A Go duration ("30s", "1m30s"), or a bare number of seconds as OPA's
// --shutdown-wait-period and --shutdown-grace-period take them.
std::optional<std::chrono::nanoseconds> parse_duration_flag(const std::string& text) {
    if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
        try {
            return std::chrono::seconds(std::stoll(text));
        } catch (...) {
            return std::nullopt;
        }
    }
    return stdlib::go_time::parse_flag_duration(text);
}

// --rest-addr and --diagnostic-addr: "off" (or empty) turns the listener off.
bool listener_off(const std::string& addr) { return addr.empty() || addr == "off"; }

int run_serve(const ServeCliOptions& o) {
    if (!webhook::set_log_level(o.log_level) || !webhook::set_log_format(o.log_format))
        return 1;  // checked by the flags
    webhook::ServerAssemblyOptions a;
    a.command = "gavel serve";
    a.version = gavel_version();
    a.build_commit = gavel_build_commit();
    for (auto [text, out, name] : {std::tuple{&o.eval_timeout, &a.service.eval_timeout, "--eval-timeout"},
                                   std::tuple{&o.header_timeout, &a.header_timeout, "--header-timeout"},
                                   std::tuple{&o.body_timeout, &a.body_timeout, "--body-timeout"},
                                   std::tuple{&o.shutdown_grace, &a.shutdown_grace, "--shutdown-grace-period"},
                                   std::tuple{&o.shutdown_wait, &a.shutdown_wait, "--shutdown-wait-period"},
                                   std::tuple{&o.reload_interval, &a.reload_interval, "--reload-interval"}}) {
        auto d = parse_duration_flag(*text);
        if (!d || d->count() < 0) {
            std::cerr << "gavel serve: invalid duration for " << name << ": " << *text << "\n";
            return 1;
        }
        *out = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    }
    // The listeners: admission (TLS), the REST API (plain HTTP, loopback by default) and
    // diagnostics (plain HTTP, for kubelet probes and Prometheus). "off" turns the REST or
    // diagnostic listener off.
    auto listener = [&a](webhook::Listener role, const char* name, const std::string& text, bool tls, const char* flag,
                         const char* want) {
        webhook::ListenerConfig l;
        l.role = role;
        l.name = name;
        l.flag = flag;
        std::string error;
        if (!webhook::parse_listen_address(text, tls, l.address, error) ||
            l.address.scheme == webhook::ListenAddress::Scheme::Unix || text.find("://") != std::string::npos) {
            std::cerr << "gavel serve: invalid " << flag << " " << text << " (want " << want << ")\n";
            return false;
        }
        a.listeners.push_back(std::move(l));
        return true;
    };
    if (!listener(webhook::Listener::Admission, "admission", o.addr, !o.insecure_http, "--addr", "host:port or :port"))
        return 1;
    a.listeners.back().threads = o.threads;
    a.listeners.back().body_limit = o.max_body;
    a.listeners.back().max_connections = o.max_connections;
    if (!listener_off(o.rest_addr)) {
        if (!listener(webhook::Listener::Rest, "rest", o.rest_addr, false, "--rest-addr", "host:port, or off"))
            return 1;
        a.listeners.back().body_limit = o.rest_max_body;
        a.listeners.back().body_budget = o.rest_max_body;  // one maximum-size body at a time
        a.listeners.back().max_connections = 64;           // kube-mgmt and operators: a few connections
    }
    if (!listener_off(o.diagnostic_addr)) {
        if (!listener(webhook::Listener::Diagnostic, "diagnostic", o.diagnostic_addr, false, "--diagnostic-addr",
                      "host:port, or off"))
            return 1;
        a.listeners.back().body_limit = 64u << 10;  // GETs only
        a.listeners.back().max_connections = 64;    // probes and Prometheus
    }

    a.service.decision = o.decision;
    auto memory_limit = parse_byte_size(o.eval_memory_limit);
    if (!memory_limit) {
        std::cerr << "gavel serve: invalid size for --eval-memory-limit: " << o.eval_memory_limit
                  << " (e.g. 512Mi, 1G, 0 for none)\n";
        return 1;
    }
    a.service.eval_memory_limit = *memory_limit;
    a.service.fail_open = o.fail_open;
    a.service.input_http = o.input_http;
    a.decision_log_console = o.decision_log;
    if (o.authentication == "token") {
        if (o.token_file.empty()) {
            std::cerr << "gavel serve: --authentication token needs a readable --token-file\n";
            return 1;
        }
        a.token_file = o.token_file;
    } else if (o.authentication != "off") {
        std::cerr << "gavel serve: --authentication must be off or token\n";
        return 1;
    }
    a.gatekeeper_dirs = o.gatekeeper;
    a.engine.v0_compatible = o.v0_compatible;
    a.policy_paths = o.policies;
    a.policy_paths.insert(a.policy_paths.end(), o.data.begin(), o.data.end());
    a.config_file = o.config_file;
    a.config_set = o.set;
    {
        BundleVerifyFlags verify = o.verify;
        verify.v0_compatible = o.v0_compatible;
        std::string error;
        if (!verify.options(a.bundle_read, error)) {
            std::cerr << "gavel serve: " << error << "\n";
            return 1;
        }
        a.bundle_verification = verify.verification;  // the read options point into it
    }
    a.bundles = o.bundles;
    a.tls.cert_file = o.tls_cert;
    a.tls.key_file = o.tls_key;
    a.tls.client_ca_file = o.client_ca;
    a.tls.sans = o.tls_san;
    a.ca_dump = o.ca_dump;
    if (o.tls_cert.empty() != o.tls_key.empty()) {
        std::cerr << "gavel serve: --tls-cert and --tls-key go together\n";
        return 1;
    }
    if (o.insecure_http) {
        if (!o.client_ca.empty()) {
            std::cerr << "gavel serve: --client-ca needs TLS (not --insecure-http)\n";
            return 1;
        }
        webhook::log_line(
            "warn", "serving plain HTTP (--insecure-http): for local debugging only, the API server requires HTTPS");
    }
    a.eval_workers = o.eval_workers;
    a.eval_queue = o.eval_queue;
    a.rest_queue = o.rest_queue;

    if (!o.manage_webhooks.empty()) {
        webhook::ManagedWebhookSettings m;
        m.name = o.manage_webhooks;
        m.persistent = o.persistent_webhooks;
        if (!o.webhook_url.empty()) {
            if (o.webhook_url.rfind("https://", 0) != 0) {
                std::cerr << "gavel serve: --webhook-url must start with https://\n";
                return 1;
            }
            m.url = o.webhook_url;
        } else {
            auto slash = o.webhook_service.find('/');
            if (slash == std::string::npos || slash == 0 || slash + 1 == o.webhook_service.size()) {
                std::cerr << "gavel serve: --webhook-service must be NAMESPACE/NAME\n";
                return 1;
            }
            m.service_namespace = o.webhook_service.substr(0, slash);
            m.service_name = o.webhook_service.substr(slash + 1);
        }
        for (const auto& flag : o.webhook_resources) {
            std::string kind, error;
            webhook::ApiResource r;
            if (!webhook::parse_resource_flag(flag, kind, r, error)) {
                std::cerr << "gavel serve: " << error << "\n";
                return 1;
            }
            m.resources[kind] = r;
        }
        m.ca_bundle_file = o.webhook_ca_bundle;
        a.managed_webhooks = std::move(m);
    }
    return webhook::run_server(a);
}

}  // namespace

void add_serve_command(CLI::App& app) {
    auto opts = std::make_shared<ServeCliOptions>();
    auto* cmd = app.add_subcommand("serve", "Run the Kubernetes admission webhook and OPA-compatible REST API");
    cmd->add_option("--policies", opts->policies, "Directory of policies (and data files); watched and hot-reloaded");
    cmd->add_option("--data", opts->data, "Directory of data files (JSON/YAML); watched and hot-reloaded");
    cmd->add_option("--gatekeeper", opts->gatekeeper,
                    "Directory of Gatekeeper ConstraintTemplates and Constraints, answered at POST /gatekeeper "
                    "(and POST / without --policies); watched and hot-reloaded");
    cmd->add_option("--addr", opts->addr, "Admission listener host:port (:0 picks a free port)")->capture_default_str();
    cmd->add_option("--rest-addr", opts->rest_addr,
                    "REST API (/v1/data, /v1/policies, /v1/query) listener, plain HTTP; off: no REST API")
        ->capture_default_str();
    cmd->add_option("--diagnostic-addr", opts->diagnostic_addr,
                    "Health and metrics listener, plain HTTP (for kubelet probes and Prometheus); off: none")
        ->capture_default_str();
    cmd->add_option("--tls-cert,--tls-cert-file", opts->tls_cert, "Certificate chain (PEM); re-read when it changes");
    cmd->add_option("--tls-key,--tls-private-key-file", opts->tls_key, "Private key (PEM)");
    cmd->add_option("--tls-san", opts->tls_san, "Names for the self-signed certificate")
        ->delimiter(',')
        ->capture_default_str();
    cmd->add_option("--ca-dump", opts->ca_dump, "Write the serving (self-signed) certificate here, for caBundle");
    cmd->add_option("--client-ca,--tls-ca-cert-file", opts->client_ca,
                    "Require client certificates signed by this CA (mTLS, admission listener)");
    cmd->add_flag("--insecure-http", opts->insecure_http, "Serve admission over plain HTTP (local debugging only)");
    cmd->add_option("--decision", opts->decision, "What POST / evaluates")->capture_default_str();
    cmd->add_option("--eval-memory-limit", opts->eval_memory_limit,
                    "Memory one evaluation may take (512Mi, 1G; 0: no limit); beyond it the evaluation fails")
        ->capture_default_str();
    cmd->add_option("--eval-timeout", opts->eval_timeout, "Evaluation time limit, time waiting for a worker included")
        ->capture_default_str();
    cmd->add_flag("--fail-open", opts->fail_open,
                  "Allow (with a warning) when evaluation fails or the server is overloaded");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse the pre-1.0 Rego dialect");
    cmd->add_option("--threads", opts->threads,
                    "Network threads of the admission listener (0: half the cores, at least one)");
    cmd->add_option("--eval-workers", opts->eval_workers, "Threads evaluating admission requests (0: one per core)")
        ->capture_default_str();
    cmd->add_option("--eval-queue", opts->eval_queue,
                    "Admission requests that may wait for an evaluation thread; beyond, the failure answer at once")
        ->capture_default_str();
    cmd->add_option("--rest-queue", opts->rest_queue,
                    "REST API requests that may wait for the REST API's thread; beyond, 503 at once")
        ->capture_default_str();
    cmd->add_option("--max-body", opts->max_body, "Admission request body limit in bytes (413 beyond)")
        ->capture_default_str();
    cmd->add_option("--rest-max-body", opts->rest_max_body, "REST API request body limit in bytes (413 beyond)")
        ->capture_default_str();
    cmd->add_option("--max-connections", opts->max_connections,
                    "Admission listener's open connections at most (0: no limit); beyond, a new connection takes the "
                    "place of the one idle longest, or is closed when all are busy")
        ->capture_default_str();
    cmd->add_option("--header-timeout", opts->header_timeout,
                    "Time limit for a request's headers; keep-alive idle limit")
        ->capture_default_str();
    cmd->add_option("--body-timeout", opts->body_timeout, "Time limit for a request's body")->capture_default_str();
    cmd->add_option("--shutdown-grace-period,--shutdown-grace", opts->shutdown_grace,
                    "How long requests in flight may finish at shutdown (seconds, or a duration)")
        ->capture_default_str();
    cmd->add_option("--shutdown-wait-period", opts->shutdown_wait,
                    "At SIGTERM, serve on with readiness false this long before draining (seconds, or a duration)")
        ->capture_default_str();
    cmd->add_option("--reload-interval", opts->reload_interval, "How often the directories are checked")
        ->capture_default_str();
    cmd->add_option("--authentication", opts->authentication, "off or token (bearer token for the REST API)")
        ->capture_default_str();
    cmd->add_option("--token-file", opts->token_file, "File holding the bearer token");
    cmd->add_option("--log-level,-l", opts->log_level, "Least severe log lines written: debug, info, warn or error")
        ->check(CLI::IsMember({"debug", "info", "warn", "error"}))
        ->capture_default_str();
    cmd->add_option("--log-format", opts->log_format, "Log lines as json, json-pretty or text")
        ->check(CLI::IsMember({"json", "json-pretty", "text"}))
        ->capture_default_str();
    cmd->add_flag("--decision-log", opts->decision_log,
                  "Decision logs on stdout (OPA's console decision logs; as decision_logs.console in the config file)");
    cmd->add_option("-c,--config-file", opts->config_file,
                    "OPA's configuration file (YAML or JSON): services, bundles, decision_logs, status, labels, keys");
    cmd->add_option("--set", opts->set, "Override a configuration value (a.b.c=v; repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("-b,--bundle", opts->bundles, "Bundle directory or .tar.gz file to serve (repeatable)")
        ->allow_extra_args(false);
    opts->verify.add_to(*cmd);
    cmd->add_flag("--input-http", opts->input_http,
                  "Expose request headers and client certificate subject as input.http");
    cmd->add_option(
        "--manage-webhooks", opts->manage_webhooks,
        "Register NAME-validating/NAME-mutating webhook configurations through the Kubernetes API (in a Pod)");
    cmd->add_flag("--persistent-webhooks", opts->persistent_webhooks,
                  "Keep the managed webhook configurations at exit");
    cmd->add_option("--webhook-service", opts->webhook_service, "The Service the managed webhooks call, NAMESPACE/NAME")
        ->capture_default_str();
    cmd->add_option("--webhook-url", opts->webhook_url,
                    "The URL the managed webhooks call instead (https://host:port)");
    cmd->add_option("--webhook-ca-bundle", opts->webhook_ca_bundle,
                    "CA file for the managed webhooks' caBundle (default: the serving certificate); re-read on change");
    cmd->add_option("--webhook-resource", opts->webhook_resources,
                    "KIND=GROUP/VERSION/RESOURCE for the managed webhooks");
    cmd->callback([opts] { exit_status() = run_serve(*opts); });
}

}  // namespace gavel::cli
