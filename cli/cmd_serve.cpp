// gavel serve: the Kubernetes admission webhook and OPA-compatible REST API (webhook/).
// This file only turns flags into the webhook's options, loads the first
// policies (a broken policy fails startup), and wires the three listeners, the
// worker pools, reload, TLS rotation and the shutdown sequence together.

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/byte_size.hpp"
#include "cli/bundle_flags.hpp"
#include "cli/commands.hpp"
#include "cli/version.hpp"
#include "engine/bundle/bundle.hpp"
#include "cli/go_duration.hpp"
#include "cli/version.hpp"
#include "webhook/directory_events.hpp"
#include "webhook/directory_source.hpp"
#include "webhook/gatekeeper_policies.hpp"
#include "webhook/lifecycle.hpp"
#include "webhook/log.hpp"
#include "webhook/managed_webhooks.hpp"
#include "webhook/memory.hpp"
#include "webhook/metrics.hpp"
#include "webhook/plugins/bundle_plugin.hpp"
#include "webhook/plugins/config.hpp"
#include "webhook/plugins/decision_logger.hpp"
#include "webhook/plugins/status_reporter.hpp"
#include "webhook/plugins/uuid.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/server.hpp"
#include "webhook/service.hpp"
#include "webhook/tls.hpp"
#include "webhook/worker_pool.hpp"

namespace gavel::cli {

namespace {

using runtime::Value;

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
    std::string config_file;            // -c: OPA's configuration file
    std::vector<std::string> set;       // --set k=v overrides
    std::vector<std::string> bundles;   // -b: bundle directories or .tar.gz files, loaded at start
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
    return parse_go_duration(text);
}

// ":8443", "127.0.0.1:0", "[::1]:8443", "localhost:8443"
bool parse_addr(const std::string& addr, std::string& host, uint16_t& port) {
    auto colon = addr.rfind(':');
    if (colon == std::string::npos) return false;
    host = addr.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) host = "0.0.0.0";
    if (host == "localhost") host = "127.0.0.1";
    // An IPv4 or IPv6 address (names other than localhost are not resolved).
    if (host.find_first_not_of("0123456789abcdefABCDEF.:") != std::string::npos) return false;
    std::string digits = addr.substr(colon + 1);
    if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos) return false;
    int p = std::stoi(digits);
    if (p > 65535) return false;
    port = static_cast<uint16_t>(p);
    return true;
}

// --rest-addr and --diagnostic-addr: "off" (or empty) turns the listener off.
bool listener_off(const std::string& addr) { return addr.empty() || addr == "off"; }

void print_errors(const lang::Diagnostics& errors) {
    for (const auto& d : errors) {
        if (d.code.empty()) std::cerr << "  " << d.message << "\n";
        else std::cerr << "  " << d.headline() << "\n";
    }
}

Value diagnostics_value(const lang::Diagnostics& errors) {
    runtime::ArrayBuilder list;
    for (const auto& d : errors) list.push_back(Value::string(d.code.empty() ? d.message : d.headline()));
    return list.build();
}

bool loopback(const std::string& host) { return host.rfind("127.", 0) == 0 || host == "::1"; }

int run_serve(const ServeCliOptions& o) {
    webhook::set_log_level(o.log_level);  // both checked by the flags
    webhook::set_log_format(o.log_format);
    using namespace webhook;
    std::chrono::milliseconds eval_timeout, header_timeout, body_timeout, grace, wait, reload_interval;
    for (auto [text, out, name] : {std::tuple{&o.eval_timeout, &eval_timeout, "--eval-timeout"},
                                   std::tuple{&o.header_timeout, &header_timeout, "--header-timeout"},
                                   std::tuple{&o.body_timeout, &body_timeout, "--body-timeout"},
                                   std::tuple{&o.shutdown_grace, &grace, "--shutdown-grace-period"},
                                   std::tuple{&o.shutdown_wait, &wait, "--shutdown-wait-period"},
                                   std::tuple{&o.reload_interval, &reload_interval, "--reload-interval"}}) {
        auto d = parse_duration_flag(*text);
        if (d && d->count() >= 0) *out = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
        if (!d || d->count() < 0) {
            std::cerr << "gavel serve: invalid duration for " << name << ": " << *text << "\n";
            return 1;
        }
    }
    // The listeners: admission (TLS), the REST API (plain HTTP, loopback by default) and
    // diagnostics (plain HTTP, for kubelet probes and Prometheus). "off" turns the REST or
    // diagnostic listener off.
    ServerOptions admission_so;
    admission_so.name = "admission";
    if (!parse_addr(o.addr, admission_so.address, admission_so.port)) {
        std::cerr << "gavel serve: invalid --addr " << o.addr << " (want host:port or :port)\n";
        return 1;
    }
    admission_so.threads = o.threads;
    admission_so.body_limit = o.max_body;
    admission_so.header_timeout = header_timeout;
    admission_so.body_timeout = body_timeout;
    std::optional<ServerOptions> rest_so, diagnostic_so;
    if (!listener_off(o.rest_addr)) {
        rest_so = admission_so;
        rest_so->name = "rest";
        rest_so->threads = 1;  // kube-mgmt and operators: a few connections
        rest_so->body_limit = o.rest_max_body;
        rest_so->body_budget = o.rest_max_body;  // one maximum-size body at a time
        if (!parse_addr(o.rest_addr, rest_so->address, rest_so->port)) {
            std::cerr << "gavel serve: invalid --rest-addr " << o.rest_addr << " (want host:port, or off)\n";
            return 1;
        }
    }
    if (!listener_off(o.diagnostic_addr)) {
        diagnostic_so = admission_so;
        diagnostic_so->name = "diagnostic";
        diagnostic_so->threads = 1;
        diagnostic_so->body_limit = 64u << 10;  // GETs only
        if (!parse_addr(o.diagnostic_addr, diagnostic_so->address, diagnostic_so->port)) {
            std::cerr << "gavel serve: invalid --diagnostic-addr " << o.diagnostic_addr << " (want host:port, or off)\n";
            return 1;
        }
    }

    ServiceOptions svc;
    svc.decision = o.decision;
    svc.eval_timeout = eval_timeout;
    auto memory_limit = parse_byte_size(o.eval_memory_limit);
    if (!memory_limit) {
        std::cerr << "gavel serve: invalid size for --eval-memory-limit: " << o.eval_memory_limit << " (e.g. 512Mi, 1G, 0 for none)\n";
        return 1;
    }
    svc.eval_memory_limit = *memory_limit;
    svc.fail_open = o.fail_open;
    svc.input_http = o.input_http;
    svc.decision_log = o.decision_log;
    if (o.authentication == "token") {
        std::ifstream in(o.token_file);
        if (o.token_file.empty() || !in) {
            std::cerr << "gavel serve: --authentication token needs a readable --token-file\n";
            return 1;
        }
        std::getline(in, svc.token);
        while (!svc.token.empty() && std::isspace(static_cast<unsigned char>(svc.token.back()))) svc.token.pop_back();
        if (svc.token.empty()) {
            std::cerr << "gavel serve: the token file is empty\n";
            return 1;
        }
    } else if (o.authentication != "off") {
        std::cerr << "gavel serve: --authentication must be off or token\n";
        return 1;
    }

    std::shared_ptr<GatekeeperPolicies> gatekeeper;
    if (!o.gatekeeper.empty()) {
        gatekeeper = std::make_shared<GatekeeperPolicies>(o.gatekeeper);
        lang::Diagnostics errors;
        if (gatekeeper->poll(errors) == GatekeeperPolicies::Poll::Failed) {
            std::cerr << "gavel serve: the Gatekeeper templates and constraints do not load:\n";
            print_errors(errors);
            return 1;
        }
        for (const auto& u : gatekeeper->unsupported())
            log_line("warn", "ConstraintTemplate skipped", {{"reason", Value::string(u)}});
        svc.gatekeeper = gatekeeper;
        svc.gatekeeper_on_root = o.policies.empty();
    }

    EngineOptions eo;
    eo.v0_compatible = o.v0_compatible;
    auto store = std::make_shared<PolicyStore>(eo, std::vector<std::string>{o.decision});
    auto metrics = std::make_shared<webhook::Metrics>();
    metrics->set_build_info(gavel_version(), gavel_build_commit());
    std::vector<std::string> dirs = o.policies;
    dirs.insert(dirs.end(), o.data.begin(), o.data.end());
    auto source = std::make_shared<DirectorySource>(dirs, store, metrics);
    if (!dirs.empty()) {
        lang::Diagnostics errors;
        if (source->poll(errors) == DirectorySource::Poll::Failed) {
            std::cerr << "gavel serve: the policies do not load:\n";
            print_errors(errors);
            return 1;
        }
    }
    // data.inventory (from --data files) for the Gatekeeper templates.
    auto sync_inventory = [store, gatekeeper] {
        if (!gatekeeper) return true;
        const Value* inventory = store->current()->data.find("inventory");
        lang::Diagnostics errors;
        if (gatekeeper->set_inventory(inventory ? *inventory : Value(), errors)) return true;
        log_line("error", "the Gatekeeper templates do not compile with data.inventory", {{"errors", diagnostics_value(errors)}});
        return false;
    };
    if (!sync_inventory()) return 1;

    // OPA's configuration file (-c, --set): services, bundles, decision logs, status, labels, keys.
    std::optional<plugins::Config> config;
    if (!o.config_file.empty() || !o.set.empty()) {
        std::string error;
        Value doc = Value::empty_object();
        if (!o.config_file.empty()) {
            auto read = plugins::read_config_file(o.config_file, error);
            if (!read) {
                std::cerr << "gavel serve: " << error << "\n";
                return 1;
            }
            doc = *read;
        }
        for (const auto& assignment : o.set)
            if (!plugins::apply_set(doc, assignment, error)) {
                std::cerr << "gavel serve: " << error << "\n";
                return 1;
            }
        config = plugins::parse_config(doc, error);
        if (!config) {
            std::cerr << "gavel serve: config error: " << error << "\n";
            return 1;
        }
    }
    // Labels as OPA's: an id unique to this process (a UUID) and the version, then the configured ones.
    std::map<std::string, std::string> labels = config ? config->labels : std::map<std::string, std::string>{};
    labels["id"] = plugins::random_uuid();
    labels["version"] = gavel_version();
    // -b bundles: read (and verified) once at start; their roots must not overlap.
    {
        engine::bundle::BundleReadOptions ro;
        BundleVerifyFlags verify = o.verify;
        verify.v0_compatible = o.v0_compatible;
        std::string error;
        if (!verify.options(ro, error)) {
            std::cerr << "gavel serve: " << error << "\n";
            return 1;
        }
        for (const auto& path : o.bundles) {
            auto read = engine::bundle::read_bundle(path, ro);
            if (!read.ok()) {
                std::cerr << "gavel serve: " << read.error_text() << "\n";
                return 1;
            }
            PolicyStore::BundleContent content;
            for (const auto& m : read.bundle->modules) content.modules.emplace_back(m.name, m.text, m.v0_compatible);
            content.data = read.bundle->data;
            content.roots = read.bundle->manifest.effective_roots();
            content.revision = read.bundle->manifest.revision;
            auto r = store->activate_bundle(path, content);
            if (!r.ok()) {
                std::cerr << "gavel serve: bundle " << path << ": " << r.message << "\n";
                print_errors(r.errors);
                return 1;
            }
        }
    }
    std::shared_ptr<plugins::DecisionLogger> decision_logger;
    if ((config && config->decision_logs.enabled) || o.decision_log) {
        plugins::DecisionLogConfig dl = config ? config->decision_logs : plugins::DecisionLogConfig{};
        dl.console = dl.console || o.decision_log;  // --decision-log: OPA's console decision logs
        decision_logger = std::make_shared<plugins::DecisionLogger>(dl, config ? *config : plugins::Config{}, store, metrics, labels);
    }
    std::shared_ptr<plugins::BundlePlugin> bundle_plugin;
    std::shared_ptr<plugins::StatusReporter> status_reporter;
    if (config && !config->bundles.empty()) bundle_plugin = std::make_shared<plugins::BundlePlugin>(*config, store, metrics);
    if (config && config->status.enabled)
        status_reporter = std::make_shared<plugins::StatusReporter>(config->status, *config, metrics, labels);

    std::shared_ptr<TlsContexts> tls;
    if (o.insecure_http) {
        log_line("warn", "serving plain HTTP (--insecure-http): for local debugging only, the API server requires HTTPS");
    } else {
        if (o.tls_cert.empty() != o.tls_key.empty()) {
            std::cerr << "gavel serve: --tls-cert and --tls-key go together\n";
            return 1;
        }
        TlsOptions to;
        to.cert_file = o.tls_cert;
        to.key_file = o.tls_key;
        to.client_ca_file = o.client_ca;
        to.sans = o.tls_san;
        std::string error;
        tls = TlsContexts::create(to, error);
        if (!tls) {
            std::cerr << "gavel serve: " << error << "\n";
            return 1;
        }
        if (!o.ca_dump.empty()) {
            std::ofstream out(o.ca_dump, std::ios::binary | std::ios::trunc);
            out << tls->certificate_pem();
            if (!out) {
                std::cerr << "gavel serve: cannot write " << o.ca_dump << ": " << std::strerror(errno) << "\n";
                return 1;
            }
        }
    }
    if (!o.client_ca.empty() && !tls) {
        std::cerr << "gavel serve: --client-ca needs TLS (not --insecure-http)\n";
        return 1;
    }
    if (rest_so && !loopback(rest_so->address))
        log_line("warn", svc.token.empty()
                             ? "the REST API (--rest-addr) is plain HTTP without authentication on a non-loopback address: "
                               "whoever reaches it can replace policies and data"
                             : "the REST API (--rest-addr) is plain HTTP on a non-loopback address: the bearer token crosses the network in clear",
                 {{"address", Value::string(o.rest_addr)}});

    std::shared_ptr<ManagedWebhooks> managed;
    if (!o.manage_webhooks.empty()) {
        ManagedWebhooksOptions mo;
        mo.config.name = o.manage_webhooks;
        mo.engine = eo;
        if (!o.webhook_url.empty()) {
            if (o.webhook_url.rfind("https://", 0) != 0) {
                std::cerr << "gavel serve: --webhook-url must start with https://\n";
                return 1;
            }
            mo.config.url = o.webhook_url;
        } else {
            auto slash = o.webhook_service.find('/');
            if (slash == std::string::npos || slash == 0 || slash + 1 == o.webhook_service.size()) {
                std::cerr << "gavel serve: --webhook-service must be NAMESPACE/NAME\n";
                return 1;
            }
            mo.config.service_namespace = mo.config.own_namespace = o.webhook_service.substr(0, slash);
            mo.config.service_name = o.webhook_service.substr(slash + 1);
        }
        for (const auto& flag : o.webhook_resources) {
            std::string kind, error;
            ApiResource r;
            if (!parse_resource_flag(flag, kind, r, error)) {
                std::cerr << "gavel serve: " << error << "\n";
                return 1;
            }
            mo.config.resources[kind] = r;
        }
        mo.ca_bundle_file = o.webhook_ca_bundle;
        if (o.webhook_ca_bundle.empty() && !tls) {
            std::cerr << "gavel serve: --manage-webhooks needs TLS (or --webhook-ca-bundle)\n";
            return 1;
        }
        if (tls) mo.serving_certificate = [tls] { return tls->certificate_pem(); };
        KubeClientConfig client;
        std::string error;
        if (!kube_config_from_environment(client, error)) {
            std::cerr << "gavel serve: --manage-webhooks: " << error << "\n";
            return 1;
        }
        managed = std::make_shared<ManagedWebhooks>(mo, client, store);
    }

    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    auto eval_pool = std::make_shared<WorkerPool>("eval", o.eval_workers ? o.eval_workers : cores, o.eval_queue);
    // REST writes serialise on the policy store anyway: one worker keeps a data sync from
    // ever taking an admission's worker.
    auto rest_pool = std::make_shared<WorkerPool>("rest", 1, o.rest_queue);
    auto service = std::make_shared<Service>(svc, store, metrics);
    service->set_pools(eval_pool, rest_pool);
    if (decision_logger) service->set_decision_logger(decision_logger);
    if (bundle_plugin) {
        // Not ready until every bundle was activated once (from disk or the service).
        service->set_bundles_ready(false);
        std::weak_ptr<plugins::BundlePlugin> weak = bundle_plugin;
        bool logs = decision_logger != nullptr;
        bundle_plugin->on_change([service, weak, status_reporter, logs] {
            auto plugin = weak.lock();
            if (!plugin) return;
            if (plugin->all_activated()) service->set_bundles_ready(true);
            if (status_reporter) status_reporter->update(plugin->statuses(), logs);
        });
    }
    auto handler = [service](Listener listener) {
        return [service, listener](HttpRequest req, Respond respond) {
            service->handle(listener, std::move(req), std::move(respond));
        };
    };
    std::unique_ptr<Server> admission, rest, diagnostic;
    try {
        admission = std::make_unique<Server>(admission_so, handler(Listener::Admission), tls);
        if (rest_so) rest = std::make_unique<Server>(*rest_so, handler(Listener::Rest), nullptr);
        if (diagnostic_so) diagnostic = std::make_unique<Server>(*diagnostic_so, handler(Listener::Diagnostic), nullptr);
    } catch (const std::exception& e) {
        std::cerr << "gavel serve: " << e.what() << "\n";
        return 1;
    }

    LifecycleOptions lo;
    lo.shutdown_wait = wait;
    lo.shutdown_grace = grace;
    Lifecycle lifecycle(lo);
    lifecycle.add_draining(admission.get());
    if (rest) lifecycle.add_draining(rest.get());
    if (diagnostic) lifecycle.add_last(diagnostic.get());
    lifecycle.add_pool(eval_pool.get());
    lifecycle.add_pool(rest_pool.get());
    lifecycle.on_not_ready = [service, wait, managed, persistent = o.persistent_webhooks] {
        service->set_ready(false);
        // The API server stops calling before the listeners close.
        if (managed) managed->stop(persistent);
        log_line("info", "shutting down: not ready; serving on for the wait period",
                 {{"wait_ms", Value::integer(static_cast<std::int64_t>(wait.count()))}});
    };
    lifecycle.on_draining = [] { log_line("info", "shutting down: no new connections, finishing requests in flight"); };

    auto reload = [source, store, gatekeeper, sync_inventory, has_dirs = !dirs.empty()](bool force) {
        lang::Diagnostics errors;
        if (gatekeeper) {
            switch (gatekeeper->poll(errors, force)) {
            case GatekeeperPolicies::Poll::Unchanged: break;
            case GatekeeperPolicies::Poll::Reloaded:
                log_line("info", "Gatekeeper templates and constraints reloaded",
                         {{"constraints", Value::integer(static_cast<std::int64_t>(gatekeeper->current()->constraint_count()))}});
                break;
            case GatekeeperPolicies::Poll::Failed:
                log_line("error", "Gatekeeper reload failed; the last good templates and constraints keep serving",
                         {{"errors", diagnostics_value(errors)}});
                break;
            }
            errors = {};
        }
        if (!has_dirs) return;
        switch (source->poll(errors, force)) {
        case DirectorySource::Poll::Unchanged: break;
        case DirectorySource::Poll::Reloaded:
            log_line("info", "policies reloaded", {{"config_hash", Value::string(store->current()->config_hash)}});
            sync_inventory();
            break;
        case DirectorySource::Poll::Failed:
            log_line("error", "reload failed; the last good policies keep serving", {{"errors", diagnostics_value(errors)}});
            break;
        }
    };
    std::unique_ptr<DirectoryEvents> events;
    std::vector<std::string> watched = dirs;
    watched.insert(watched.end(), o.gatekeeper.begin(), o.gatekeeper.end());
    if (!watched.empty()) {
        // Polling always runs (the fallback); inotify makes changes take effect at once.
        lifecycle.every(reload_interval, [reload] { reload(false); });
        events = std::make_unique<DirectoryEvents>(watched, [&lifecycle, reload] { lifecycle.post([reload] { reload(false); }); });
        if (!events->start()) log_line("warn", "inotify unavailable; directories are polled only");
    }
    auto reload_certificates = [tls, last_error = std::make_shared<std::string>()] {
        bool changed = false;
        std::string error;
        if (!tls->reload_if_changed(changed, error)) {
            if (error != *last_error) log_line("error", "certificate reload failed; keeping the previous one", {{"error", Value::string(error)}});
            *last_error = error;
        } else if (changed) {
            last_error->clear();
            log_line("info", "certificate reloaded");
        }
    };
    bool cert_files = tls && !o.tls_cert.empty();
    if (cert_files) lifecycle.every(std::chrono::seconds(1), reload_certificates);
    lifecycle.on_reload = [reload, reload_certificates, cert_files, has_dirs = !watched.empty()] {
        if (has_dirs) reload(true);
        if (cert_files) reload_certificates();
    };
    // Large requests leave freed pages behind: give them back, off the request threads.
    lifecycle.every(std::chrono::seconds(1), release_memory_if_requested);

    if (diagnostic) diagnostic->start();
    if (rest) rest->start();
    admission->start();
    if (status_reporter) status_reporter->start();
    if (decision_logger) decision_logger->start();
    if (bundle_plugin) bundle_plugin->start();
    service->set_ready(true);
    // One line per listener; admission last, so that a reader that saw it has seen them all.
    if (diagnostic)
        log_line("info", "listening", {{"listener", Value::string("diagnostic")}, {"address", Value::string(diagnostic_so->address)},
                                       {"port", Value::integer(diagnostic->port())}, {"tls", Value::boolean(false)}});
    if (rest)
        log_line("info", "listening", {{"listener", Value::string("rest")}, {"address", Value::string(rest_so->address)},
                                       {"port", Value::integer(rest->port())}, {"tls", Value::boolean(false)},
                                       {"authentication", Value::string(svc.token.empty() ? "off" : "token")}});
    log_line("info", "listening",
             {{"listener", Value::string("admission")},
              {"address", Value::string(admission_so.address)},
              {"port", Value::integer(admission->port())},
              {"tls", Value::boolean(tls != nullptr)},
              {"mtls", Value::boolean(!o.client_ca.empty())},
              {"decision", Value::string(o.decision)},
              {"eval_workers", Value::integer(eval_pool->workers())},
              {"eval_queue", Value::integer(static_cast<std::int64_t>(eval_pool->queue_limit()))},
              {"config_hash", Value::string(store->current()->config_hash)}});
    // Registered once serving; then kept in line with policies and certificate.
    if (managed) managed->start();
    bool clean = lifecycle.run();
    if (events) events->stop();
    if (bundle_plugin) bundle_plugin->stop();
    if (status_reporter) status_reporter->stop();
    if (decision_logger) decision_logger->stop();  // uploads what is buffered, once
    if (!clean) {
        // Evaluations ignored their cancellation: their threads cannot be joined, so do not wait.
        log_line("warn", "stopped with evaluations still running");
        std::fflush(nullptr);
        std::_Exit(0);
    }
    log_line("info", "stopped");
    return 0;
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
    cmd->add_option("--tls-san", opts->tls_san, "Names for the self-signed certificate")->delimiter(',')->capture_default_str();
    cmd->add_option("--ca-dump", opts->ca_dump, "Write the serving (self-signed) certificate here, for caBundle");
    cmd->add_option("--client-ca,--tls-ca-cert-file", opts->client_ca, "Require client certificates signed by this CA (mTLS, admission listener)");
    cmd->add_flag("--insecure-http", opts->insecure_http, "Serve admission over plain HTTP (local debugging only)");
    cmd->add_option("--decision", opts->decision, "What POST / evaluates")->capture_default_str();
    cmd->add_option("--eval-memory-limit", opts->eval_memory_limit,
                    "Memory one evaluation may take (512Mi, 1G; 0: no limit); beyond it the evaluation fails")
        ->capture_default_str();
    cmd->add_option("--eval-timeout", opts->eval_timeout, "Evaluation time limit, time waiting for a worker included")
        ->capture_default_str();
    cmd->add_flag("--fail-open", opts->fail_open, "Allow (with a warning) when evaluation fails or the server is overloaded");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse the pre-1.0 Rego dialect");
    cmd->add_option("--threads", opts->threads, "Network threads of the admission listener (0: one per core)");
    cmd->add_option("--eval-workers", opts->eval_workers, "Threads evaluating admission requests (0: one per core)")
        ->capture_default_str();
    cmd->add_option("--eval-queue", opts->eval_queue,
                    "Admission requests that may wait for an evaluation thread; beyond, the failure answer at once")
        ->capture_default_str();
    cmd->add_option("--rest-queue", opts->rest_queue,
                    "REST API requests that may wait for the REST API's thread; beyond, 503 at once")
        ->capture_default_str();
    cmd->add_option("--max-body", opts->max_body, "Admission request body limit in bytes (413 beyond)")->capture_default_str();
    cmd->add_option("--rest-max-body", opts->rest_max_body, "REST API request body limit in bytes (413 beyond)")
        ->capture_default_str();
    cmd->add_option("--header-timeout", opts->header_timeout, "Time limit for a request's headers; keep-alive idle limit")
        ->capture_default_str();
    cmd->add_option("--body-timeout", opts->body_timeout, "Time limit for a request's body")->capture_default_str();
    cmd->add_option("--shutdown-grace-period,--shutdown-grace", opts->shutdown_grace,
                    "How long requests in flight may finish at shutdown (seconds, or a duration)")
        ->capture_default_str();
    cmd->add_option("--shutdown-wait-period", opts->shutdown_wait,
                    "At SIGTERM, serve on with readiness false this long before draining (seconds, or a duration)")
        ->capture_default_str();
    cmd->add_option("--reload-interval", opts->reload_interval, "How often the directories are checked")->capture_default_str();
    cmd->add_option("--authentication", opts->authentication, "off or token (bearer token for the REST API)")->capture_default_str();
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
    cmd->add_option("--set", opts->set, "Override a configuration value (a.b.c=v; repeatable)")->allow_extra_args(false);
    cmd->add_option("-b,--bundle", opts->bundles, "Bundle directory or .tar.gz file to serve (repeatable)")->allow_extra_args(false);
    opts->verify.add_to(*cmd);
    cmd->add_flag("--input-http", opts->input_http, "Expose request headers and client certificate subject as input.http");
    cmd->add_option("--manage-webhooks", opts->manage_webhooks,
                    "Register NAME-validating/NAME-mutating webhook configurations through the Kubernetes API (in a Pod)");
    cmd->add_flag("--persistent-webhooks", opts->persistent_webhooks, "Keep the managed webhook configurations at exit");
    cmd->add_option("--webhook-service", opts->webhook_service, "The Service the managed webhooks call, NAMESPACE/NAME")
        ->capture_default_str();
    cmd->add_option("--webhook-url", opts->webhook_url, "The URL the managed webhooks call instead (https://host:port)");
    cmd->add_option("--webhook-ca-bundle", opts->webhook_ca_bundle,
                    "CA file for the managed webhooks' caBundle (default: the serving certificate); re-read on change");
    cmd->add_option("--webhook-resource", opts->webhook_resources, "KIND=GROUP/VERSION/RESOURCE for the managed webhooks");
    cmd->callback([opts] { exit_status() = run_serve(*opts); });
}

}  // namespace gavel::cli
