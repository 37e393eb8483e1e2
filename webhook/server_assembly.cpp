#include "webhook/server_assembly.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "runtime/file_read.hpp"
#include "webhook/admission.hpp"
#include "webhook/directory_events.hpp"
#include "webhook/fd_limit.hpp"
#include "webhook/directory_source.hpp"
#include "webhook/gatekeeper_policies.hpp"
#include "webhook/kube_client.hpp"
#include "webhook/lifecycle.hpp"
#include "webhook/log.hpp"
#include "webhook/managed_webhooks.hpp"
#include "webhook/memory.hpp"
#include "webhook/metrics.hpp"
#include "webhook/plugins/bundle_plugin.hpp"
#include "webhook/plugins/config.hpp"
#include "webhook/plugins/decision_logger.hpp"
#include "webhook/plugins/status_reporter.hpp"
#include "support/random_uuid.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/prometheus_text.hpp"
#include "webhook/server.hpp"
#include "webhook/worker_pool.hpp"
#include "runtime/json.hpp"

namespace gavel::webhook {

namespace {

using runtime::Value;

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

// The bearer token of --authentication token: the file's first line.
bool read_token(const std::string& file, std::string& token, std::string& error) {
    if (file.empty()) {
        error = "--authentication token needs a readable --token-file";
        return false;
    }
    runtime::FileRead read = runtime::read_whole_file(file);
    if (!read.ok) {
        error = "--authentication token needs a readable --token-file: " + read.message;
        return false;
    }
    token = read.text.substr(0, read.text.find('\n'));
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    if (token.empty()) {
        error = "the token file is empty";
        return false;
    }
    return true;
}

// OPA's configuration: the file, then each --set and --set-file in order.
bool read_config(const ServerAssemblyOptions& o, std::optional<plugins::Config>& config, std::string& error) {
    if (o.config_file.empty() && o.config_set.empty() && o.config_set_file.empty()) return true;
    Value doc = Value::empty_object();
    if (!o.config_file.empty()) {
        auto read = plugins::read_config_file(o.config_file, error);
        if (!read) return false;
        doc = *read;
    }
    for (const auto& assignment : o.config_set)
        if (!plugins::apply_set(doc, assignment, error)) return false;
    for (const auto& assignment : o.config_set_file)
        if (!plugins::apply_set_file(doc, assignment, error)) return false;
    config = plugins::parse_config(doc, error);
    if (!config) {
        error = "config error: " + error;
        return false;
    }
    return true;
}

ServerOptions server_options(const ListenerConfig& l, const ServerAssemblyOptions& o) {
    ServerOptions so;
    so.name = l.name;
    so.address = l.address.host;
    so.port = l.address.port;
    so.unix_path = l.address.unix_path;
    so.unix_mode = o.unix_socket_mode;
    so.threads = l.threads;
    so.body_limit = l.body_limit;
    so.body_budget = l.body_budget;
    so.header_timeout = o.header_timeout;
    so.body_timeout = o.body_timeout;
    so.max_connections = l.max_connections;
    if (l.role == Listener::Admission) {
        // The listener's own refusals (body too large, too slow, malformed) answer as
        // AdmissionReviews. The request was not read, so there is no uid to echo and the API
        // server cannot take the answer as a decision; the error status keeps the message in its error.
        so.failure_response = [fail_open = o.service.fail_open](int status, std::string_view message) {
            ReviewRequest unread;
            unread.api_version = "admission.k8s.io/v1";
            unread.uid = runtime::Value::string("");
            return HttpResponse::json(status,
                                      runtime::to_json(error_decision(unread, std::string(message), fail_open).review));
        };
    }
    return so;
}

}  // namespace

int run_server(const ServerAssemblyOptions& o) {
    const std::string& cmd = o.command;
    auto fail = [&cmd](const std::string& message) {
        std::cerr << cmd << ": " << message << "\n";
        return 1;
    };
    tune_allocator_for_serving();
    // OPA's configuration file (-c, --set): services, bundles, decision logs, status, labels, keys.
    std::optional<plugins::Config> config;
    if (std::string error; !read_config(o, config, error)) return fail(error);
    ServiceOptions svc = o.service;
    std::optional<std::vector<double>> opa_buckets;
    svc.api.version = o.version;
    svc.api.v0_compatible = o.engine.v0_compatible;
    svc.api.max_errors = o.engine.max_errors;
    svc.api.builtin_health_paths = !o.opa_runtime;
    if (config) {
        svc.api.default_decision = config->default_decision;
        svc.api.authorization_decision = config->default_authorization_decision;
        // server.decoding: OPA's request body limits.
        auto limit = [&config](std::initializer_list<std::string_view> path, std::size_t& out) {
            const Value* v = &config->document;
            for (auto key : path) v = v && v->is_object() ? v->find(key) : nullptr;
            std::int64_t n = 0;
            if (v && v->as_int64(n) && n > 0) out = static_cast<std::size_t>(n);
        };
        limit({"server", "decoding", "max_length"}, svc.api.max_request_bytes);
        limit({"server", "decoding", "gzip", "max_length"}, svc.api.max_inflated_bytes);
        // server.metrics.prom.http_request_duration_seconds.buckets: OPA's request histogram.
        const Value* buckets = &config->document;
        for (auto key : {"server", "metrics", "prom", "http_request_duration_seconds", "buckets"})
            buckets = buckets && buckets->is_object() ? buckets->find(key) : nullptr;
        std::string error;
        if (buckets && !buckets->is_null() &&
            !histogram_bounds(*buckets, "server.metrics.prom.http_request_duration_seconds.buckets",
                              opa_buckets.emplace(), error))
            return fail("server metrics configuration parse error: " + error);
    }
    if (!o.token_file.empty()) {
        std::string error;
        if (!read_token(o.token_file, svc.token, error)) return fail(error);
    }

    auto metrics = std::make_shared<Metrics>();
    metrics->set_build_info(o.version, o.build_commit);
    if (opa_buckets) metrics->set_opa_buckets(*opa_buckets);
    std::shared_ptr<GatekeeperPolicies> gatekeeper;
    if (!o.gatekeeper_dirs.empty()) {
        gatekeeper = std::make_shared<GatekeeperPolicies>(o.gatekeeper_dirs, metrics);
        lang::Diagnostics errors;
        if (gatekeeper->poll(errors) == GatekeeperPolicies::Poll::Failed) {
            std::cerr << cmd << ": the Gatekeeper templates and constraints do not load:\n";
            print_errors(errors);
            return 1;
        }
        for (const auto& u : gatekeeper->unsupported())
            log_line("warn", "ConstraintTemplate skipped", {{"reason", Value::string(u)}});
        svc.gatekeeper = gatekeeper;
        svc.gatekeeper_on_root = o.policy_paths.empty();
    }

    auto store = std::make_shared<PolicyStore>(o.engine, std::vector<std::string>{svc.decision});
    if (!o.opa_runtime) store->log_admission_warnings();  // only gavel serve answers admission reviews
    DirectorySource::Options source_options;
    source_options.ignore = o.ignore;
    source_options.v0_compatible = o.engine.v0_compatible;
    auto source = std::make_shared<DirectorySource>(o.policy_paths, store, metrics, SettleTiming{}, source_options);
    if (!o.policy_paths.empty()) {
        lang::Diagnostics errors;
        if (source->poll(errors) == DirectorySource::Poll::Failed) {
            std::cerr << cmd << ": the policies do not load:\n";
            print_errors(errors);
            return 1;
        }
    }
    // OPA's runtime keeps its version in the data: data.system.version.
    if (o.opa_runtime) {
        Value version = Value::object({{Value::string("build_commit"), Value::string(o.build_commit)},
                                       {Value::string("build_hostname"), Value::string("")},
                                       {Value::string("build_timestamp"), Value::string("")},
                                       {Value::string("version"), Value::string(o.version)}});
        if (auto r = store->put_data({"system", "version"}, version, false); !r.ok()) return fail(r.message);
    }
    // data.inventory (from data files) for the Gatekeeper templates.
    auto sync_inventory = [store, gatekeeper] {
        if (!gatekeeper) return true;
        const Value* inventory = store->current()->data.find("inventory");
        lang::Diagnostics errors;
        if (gatekeeper->set_inventory(inventory ? *inventory : Value(), errors)) return true;
        log_line("error", "the Gatekeeper templates do not compile with data.inventory",
                 {{"errors", diagnostics_value(errors)}});
        return false;
    };
    if (!sync_inventory()) return 1;

    // Labels as OPA's: an id unique to this process (a UUID) and the version, then the configured ones.
    std::map<std::string, std::string> labels = config ? config->labels : std::map<std::string, std::string>{};
    labels["id"] = support::random_uuid();
    labels["version"] = o.version;
    // -b bundles: read (and verified) once at start; their roots must not overlap.
    engine::bundle::BundleReadOptions read_options = o.bundle_read;
    read_options.verification = o.bundle_verification ? &*o.bundle_verification : nullptr;
    // Activated together, as OPA does: one may use another's rules.
    std::vector<std::pair<std::string, PolicyStore::BundleContent>> bundles;
    for (const auto& path : o.bundles) {
        auto read = engine::bundle::read_bundle(path, read_options);
        if (!read.ok()) return fail(read.error_text());
        PolicyStore::BundleContent content;
        // OPA's store ids: the bundle's name joined with the module's path as its reader
        // names it (a directory's files keep the directory: "app" + "app/x.rego").
        std::error_code ec;
        bool directory = std::filesystem::is_directory(path, ec);
        for (const auto& m : read.bundle->modules) {
            std::string id = (std::filesystem::path(path) / (directory ? m.name : m.path)).lexically_normal().string();
            content.modules.emplace_back(id, m.text, m.v0_compatible);
        }
        content.data = read.bundle->data;
        content.roots = read.bundle->manifest.effective_roots();
        content.revision = read.bundle->manifest.revision;
        bundles.emplace_back(path, std::move(content));
    }
    if (!bundles.empty()) {
        auto r = store->activate_bundles(bundles);
        if (!r.ok()) {
            std::string names;
            for (const auto& b : bundles) names += (names.empty() ? "" : ", ") + b.first;
            std::cerr << cmd << (bundles.size() == 1 ? ": bundle " : ": bundles ") << names << ": " << r.message
                      << "\n";
            print_errors(r.errors);
            return 1;
        }
    }
    std::shared_ptr<plugins::DecisionLogger> decision_logger;
    if ((config && config->decision_logs.enabled) || o.decision_log_console) {
        plugins::DecisionLogConfig dl = config ? config->decision_logs : plugins::DecisionLogConfig{};
        dl.console = dl.console || o.decision_log_console;  // --decision-log: OPA's console decision logs
        decision_logger =
            std::make_shared<plugins::DecisionLogger>(dl, config ? *config : plugins::Config{}, store, metrics, labels);
    }
    std::shared_ptr<plugins::BundlePlugin> bundle_plugin;
    std::shared_ptr<plugins::StatusReporter> status_reporter;
    if (config && !config->bundles.empty())
        bundle_plugin = std::make_shared<plugins::BundlePlugin>(*config, store, metrics);
    if (config && config->status.enabled)
        status_reporter = std::make_shared<plugins::StatusReporter>(config->status, *config, metrics, labels);

    // TLS, when a listener wants it: the files, or (gavel serve) a self-signed certificate.
    bool wants_tls =
        std::any_of(o.listeners.begin(), o.listeners.end(), [](const ListenerConfig& l) { return l.address.tls(); });
    std::shared_ptr<TlsContexts> tls;
    if (o.tls.cert_file.empty() != o.tls.key_file.empty())
        return fail("the TLS certificate and private key files go together");
    if (wants_tls) {
        if (o.tls.cert_file.empty() && !o.self_signed) return fail("TLS certificate required but not supplied");
        std::string error;
        tls = TlsContexts::create(o.tls, error);
        if (!tls) return fail(error);
        if (!o.ca_dump.empty()) {
            std::ofstream out(o.ca_dump, std::ios::binary | std::ios::trunc);
            out << tls->certificate_pem();
            if (!out) return fail("cannot write " + o.ca_dump + ": " + std::strerror(errno));
        }
    } else if (!o.tls.client_ca_file.empty() && o.self_signed) {
        return fail("--client-ca needs TLS (not --insecure-http)");
    }
    for (const auto& l : o.listeners) {
        if (l.role == Listener::Rest && !l.address.loopback() && !l.address.tls())
            log_line(
                "warn",
                "the REST API (" + l.flag + ") is plain HTTP " +
                    (svc.token.empty() ? "without authentication on a non-loopback address: whoever reaches it can "
                                         "replace policies and data"
                                       : "on a non-loopback address: the bearer token crosses the network in clear"),
                {{"address", Value::string(l.address.text)}});
    }

    std::shared_ptr<ManagedWebhooks> managed;
    if (o.managed_webhooks) {
        const ManagedWebhookSettings& m = *o.managed_webhooks;
        ManagedWebhooksOptions mo;
        mo.config.name = m.name;
        mo.engine = o.engine;
        if (!m.url.empty()) {
            mo.config.url = m.url;
        } else {
            mo.config.service_namespace = mo.config.own_namespace = m.service_namespace;
            mo.config.service_name = m.service_name;
        }
        mo.config.resources = m.resources;
        mo.ca_bundle_file = m.ca_bundle_file;
        if (m.ca_bundle_file.empty() && !tls) return fail("--manage-webhooks needs TLS (or --webhook-ca-bundle)");
        if (tls) mo.serving_certificate = [tls] { return tls->certificate_pem(); };
        KubeClientConfig client;
        std::string error;
        if (!kube_config_from_environment(client, error)) return fail("--manage-webhooks: " + error);
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
    {
        // What OPA's API shows of the plugins and the configuration.
        std::weak_ptr<plugins::BundlePlugin> weak_bundles = bundle_plugin;
        bool logs = decision_logger != nullptr, status = status_reporter != nullptr;
        auto plugin_states = [weak_bundles, logs, status] {
            std::map<std::string, std::string> states;
            if (auto b = weak_bundles.lock()) states["bundle"] = b->all_activated() ? "OK" : "NOT_READY";
            if (logs) states["decision_logs"] = "OK";
            if (status) states["status"] = "OK";
            return states;
        };
        std::string config_json =
            runtime::to_json(plugins::active_config(config ? config->document : Value::empty_object(), labels,
                                                    svc.api.default_decision, svc.api.authorization_decision));
        // /v1/status: the report the status plugin would send now.
        runtime::ObjectBuilder label_values;
        for (const auto& [k, v] : labels) label_values.insert(Value::string(k), Value::string(v));
        auto status_json = [weak_bundles, logs, status,
                            label_value = label_values.build()]() -> std::optional<std::string> {
            if (!status) return std::nullopt;
            auto b = weak_bundles.lock();
            return runtime::to_json(plugins::StatusReporter::report(
                b ? b->statuses() : std::vector<plugins::BundleStatus>{}, label_value, logs));
        };
        service->set_api_hooks(
            plugin_states, [config_json] { return config_json; }, status_json);
    }
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
    struct Running {
        const ListenerConfig* config;
        std::unique_ptr<Server> server;
    };
    std::vector<Running> servers;
    try {
        for (const auto& l : o.listeners) {
            auto handler = [service, role = l.role](HttpRequest req, Respond respond) {
                service->handle(role, std::move(req), std::move(respond));
            };
            servers.push_back(
                {&l, std::make_unique<Server>(server_options(l, o), handler, l.address.tls() ? tls : nullptr)});
        }
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    // Each listener's connections on /metrics (read through the Server, which outlives every scrape).
    for (const auto& s : servers) {
        const std::string& host = s.config->address.host;
        std::string address =
            (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(s.server->port());
        metrics->add_listener(s.config->name, address, [server = s.server.get()] {
            return Metrics::ListenerCounts{server->connections(), server->refused_connections(),
                                           server->evicted_connections()};
        });
    }

    LifecycleOptions lo;
    lo.shutdown_wait = o.shutdown_wait;
    lo.shutdown_grace = o.shutdown_grace;
    Lifecycle lifecycle(lo);
    // Diagnostics close last: liveness keeps answering while the others drain.
    for (auto& s : servers) {
        if (s.config->role == Listener::Diagnostic) lifecycle.add_last(s.server.get());
        else lifecycle.add_draining(s.server.get());
    }
    lifecycle.add_pool(eval_pool.get());
    lifecycle.add_pool(rest_pool.get());
    lifecycle.on_not_ready = [service, wait = o.shutdown_wait, managed,
                              persistent = o.managed_webhooks && o.managed_webhooks->persistent, bundle_plugin] {
        service->set_ready(false);
        if (bundle_plugin) bundle_plugin->request_stop();  // an activation under way stops now
        // The API server stops calling before the listeners close.
        if (managed) managed->stop(persistent);
        log_line("info", "shutting down: not ready; serving on for the wait period",
                 {{"wait_ms", Value::integer(static_cast<std::int64_t>(wait.count()))}});
    };
    lifecycle.on_draining = [] { log_line("info", "shutting down: no new connections, finishing requests in flight"); };

    bool has_paths = !o.policy_paths.empty();
    auto reload = [source, store, gatekeeper, sync_inventory, has_paths](bool force) {
        lang::Diagnostics errors;
        if (gatekeeper) {
            switch (gatekeeper->poll(errors, force)) {
                case GatekeeperPolicies::Poll::Unchanged: break;
                case GatekeeperPolicies::Poll::Reloaded:
                    log_line("info", "Gatekeeper templates and constraints reloaded",
                             {{"constraints",
                               Value::integer(static_cast<std::int64_t>(gatekeeper->current()->constraint_count()))}});
                    break;
                case GatekeeperPolicies::Poll::Failed:
                    log_line("error", "Gatekeeper reload failed; the last good templates and constraints keep serving",
                             {{"errors", diagnostics_value(errors)}});
                    break;
            }
            errors = {};
        }
        if (!has_paths) return;
        switch (source->poll(errors, force)) {
            case DirectorySource::Poll::Unchanged: break;
            case DirectorySource::Poll::Reloaded:
                log_line("info", "policies reloaded", {{"config_hash", Value::string(store->current()->config_hash)}});
                sync_inventory();
                break;
            case DirectorySource::Poll::Failed:
                log_line("error", "reload failed; the last good policies keep serving",
                         {{"errors", diagnostics_value(errors)}});
                break;
        }
    };
    std::unique_ptr<DirectoryEvents> events;
    std::vector<std::string> watched;
    if (o.watch) {
        watched = o.policy_paths;
        watched.insert(watched.end(), o.gatekeeper_dirs.begin(), o.gatekeeper_dirs.end());
    }
    if (!watched.empty()) {
        // Polling always runs (the fallback); inotify makes changes take effect at once.
        lifecycle.every(o.reload_interval, [reload] { reload(false); });
        events = std::make_unique<DirectoryEvents>(
            watched, [&lifecycle, reload] { lifecycle.post([reload] { reload(false); }); });
        if (!events->start()) log_line("warn", "inotify unavailable; directories are polled only");
    }
    auto reload_certificates = [tls, last_error = std::make_shared<std::string>()] {
        bool changed = false;
        std::string error;
        if (!tls->reload_if_changed(changed, error)) {
            if (error != *last_error)
                log_line("error", "certificate reload failed; keeping the previous one",
                         {{"error", Value::string(error)}});
            *last_error = error;
        } else if (changed) {
            last_error->clear();
            log_line("info", "certificate reloaded");
        }
    };
    bool cert_files = tls && !o.tls.cert_file.empty();
    if (cert_files) lifecycle.every(o.tls_refresh, reload_certificates);
    lifecycle.on_reload = [reload, reload_certificates, cert_files,
                           has_dirs = has_paths || !o.gatekeeper_dirs.empty()] {
        if (has_dirs) reload(true);
        if (cert_files) reload_certificates();
    };
    // Large requests leave freed pages behind: give them back, off the request threads.
    lifecycle.every(std::chrono::seconds(1), release_memory_if_requested);

    // Diagnostics first, then the API, admission last: a reader that saw admission's
    // "listening" line has seen them all.
    auto order = [](Listener role) { return role == Listener::Diagnostic ? 0 : role == Listener::Admission ? 2 : 1; };
    std::stable_sort(servers.begin(), servers.end(), [&order](const Running& a, const Running& b) {
        return order(a.config->role) < order(b.config->role);
    });
    if (auto fds = raise_fd_limit(); !fds.error.empty())
        log_line("warn", "cannot raise the open file limit",
                 {{"limit", runtime::Value::integer(static_cast<std::int64_t>(fds.before))},
                  {"error", runtime::Value::string(fds.error)}});
    for (auto& s : servers) s.server->start();
    if (status_reporter) status_reporter->start();
    if (decision_logger) decision_logger->start();
    if (bundle_plugin) bundle_plugin->start();
    service->set_ready(true);
    for (auto& s : servers) {
        const ListenerConfig& l = *s.config;
        std::vector<std::pair<std::string_view, Value>> fields = {{"listener", Value::string(l.name)},
                                                                  {"address", Value::string(l.address.host)},
                                                                  {"port", Value::integer(s.server->port())},
                                                                  {"tls", Value::boolean(l.address.tls())}};
        if (!l.address.unix_path.empty()) fields.emplace_back("path", Value::string(l.address.unix_path));
        if (l.role == Listener::Rest)
            fields.emplace_back("authentication", Value::string(svc.token.empty() ? "off" : "token"));
        if (l.role == Listener::Admission) {
            fields.emplace_back("mtls", Value::boolean(!o.tls.client_ca_file.empty()));
            fields.emplace_back("decision", Value::string(svc.decision));
            fields.emplace_back("eval_workers", Value::integer(eval_pool->workers()));
            fields.emplace_back("eval_queue", Value::integer(static_cast<std::int64_t>(eval_pool->queue_limit())));
            fields.emplace_back("config_hash", Value::string(store->current()->config_hash));
        }
        log_line("info", "listening", fields);
    }
    // Registered once serving; then kept in line with policies and certificate.
    if (managed) managed->start();
    bool clean = lifecycle.run();
    if (events) events->stop();
    // Bundle work was told to stop at SIGTERM; what has not stopped after the drain and
    // the cancel linger (a download, a compile) is not waited for.
    if (bundle_plugin && !bundle_plugin->stop(lo.cancel_linger)) clean = false;
    if (status_reporter) status_reporter->stop();
    if (decision_logger) decision_logger->stop();  // uploads what is buffered, once
    if (!clean) {
        // Evaluations ignored their cancellation (or a bundle compile runs on): their threads
        // cannot be joined, so do not wait.
        log_line("warn", "stopped with evaluations or a bundle compile still running");
        std::fflush(nullptr);
        std::_Exit(0);
    }
    log_line("info", "stopped");
    return 0;
}

}  // namespace gavel::webhook
