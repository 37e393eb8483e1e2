// gavel serve: the Kubernetes admission webhook and OPA-compatible REST API (webhook/).
// This file only turns flags into the webhook's options, loads the first
// policies (a broken policy fails startup), and wires reload and TLS rotation.

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "cli/go_duration.hpp"
#include "webhook/directory_events.hpp"
#include "webhook/directory_source.hpp"
#include "webhook/log.hpp"
#include "webhook/metrics.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/server.hpp"
#include "webhook/service.hpp"
#include "webhook/tls.hpp"

namespace gavel::cli {

namespace {

using runtime::Value;

struct ServeCliOptions {
    std::vector<std::string> policies;
    std::vector<std::string> data;
    std::string addr = ":8443";
    std::string tls_cert, tls_key, client_ca, ca_dump;
    std::vector<std::string> tls_san = {"localhost", "127.0.0.1"};
    bool insecure_http = false;
    std::string decision = "data.system.main";
    std::string eval_timeout = "5s";
    bool fail_open = false;
    bool v0_compatible = false;
    unsigned threads = 0;
    std::size_t max_body = 3u << 20;
    std::string header_timeout = "10s", body_timeout = "10s", shutdown_grace = "30s", reload_interval = "1s";
    std::string authentication = "off";
    std::string token_file;
    bool decision_log = false;
    bool input_http = false;
};

// ":8443", "127.0.0.1:0", "[::1]:8443", "localhost:8443"
bool parse_addr(const std::string& addr, std::string& host, uint16_t& port) {
    auto colon = addr.rfind(':');
    if (colon == std::string::npos) return false;
    host = addr.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) host = "0.0.0.0";
    if (host == "localhost") host = "127.0.0.1";
    try {
        int p = std::stoi(addr.substr(colon + 1));
        if (p < 0 || p > 65535) return false;
        port = static_cast<uint16_t>(p);
    } catch (...) {
        return false;
    }
    return true;
}

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

int run_serve(const ServeCliOptions& o) {
    using namespace webhook;
    std::chrono::milliseconds eval_timeout, header_timeout, body_timeout, grace, reload_interval;
    for (auto [text, out, name] : {std::tuple{&o.eval_timeout, &eval_timeout, "--eval-timeout"},
                                   std::tuple{&o.header_timeout, &header_timeout, "--header-timeout"},
                                   std::tuple{&o.body_timeout, &body_timeout, "--body-timeout"},
                                   std::tuple{&o.shutdown_grace, &grace, "--shutdown-grace"},
                                   std::tuple{&o.reload_interval, &reload_interval, "--reload-interval"}}) {
        auto d = parse_go_duration(*text);
        if (d && d->count() >= 0) *out = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
        if (!d || d->count() < 0) {
            std::cerr << "gavel serve: invalid duration for " << name << ": " << *text << "\n";
            return 1;
        }
    }
    ServerOptions so;
    if (!parse_addr(o.addr, so.address, so.port)) {
        std::cerr << "gavel serve: invalid --addr " << o.addr << " (want host:port or :port)\n";
        return 1;
    }
    so.threads = o.threads;
    so.body_limit = o.max_body;
    so.header_timeout = header_timeout;
    so.body_timeout = body_timeout;
    so.shutdown_grace = grace;

    ServiceOptions svc;
    svc.decision = o.decision;
    svc.eval_timeout = eval_timeout;
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

    EngineOptions eo;
    eo.v0_compatible = o.v0_compatible;
    auto store = std::make_shared<PolicyStore>(eo, std::vector<std::string>{o.decision});
    auto metrics = std::make_shared<webhook::Metrics>();
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

    auto service = std::make_shared<Service>(svc, store, metrics);
    std::unique_ptr<Server> server;
    try {
        server = std::make_unique<Server>(so, [service](HttpRequest& req) { return service->handle(req); }, tls);
    } catch (const std::exception& e) {
        std::cerr << "gavel serve: " << e.what() << "\n";
        return 1;
    }
    server->on_shutdown = [service] {
        service->set_ready(false);
        log_line("info", "shutting down: not ready, no new connections, finishing requests in flight");
    };
    std::unique_ptr<DirectoryEvents> events;
    if (!dirs.empty()) {
        auto reload = [source, store] {
            lang::Diagnostics errors;
            switch (source->poll(errors)) {
            case DirectorySource::Poll::Unchanged: break;
            case DirectorySource::Poll::Reloaded:
                log_line("info", "policies reloaded", {{"config_hash", Value::string(store->current()->config_hash)}});
                break;
            case DirectorySource::Poll::Failed:
                log_line("error", "reload failed; the last good policies keep serving", {{"errors", diagnostics_value(errors)}});
                break;
            }
        };
        // Polling always runs (the fallback); inotify makes changes take effect at once.
        server->every(reload_interval, reload);
        Server* raw = server.get();
        events = std::make_unique<DirectoryEvents>(dirs, [raw, reload] { raw->post(reload); });
        if (!events->start()) log_line("warn", "inotify unavailable; directories are polled only");
    }
    if (tls && !o.tls_cert.empty()) {
        server->every(std::chrono::seconds(1), [tls, last_error = std::make_shared<std::string>()] {
            bool changed = false;
            std::string error;
            if (!tls->reload_if_changed(changed, error)) {
                if (error != *last_error) log_line("error", "certificate reload failed; keeping the previous one", {{"error", Value::string(error)}});
                *last_error = error;
            } else if (changed) {
                last_error->clear();
                log_line("info", "certificate reloaded");
            }
        });
    }
    service->set_ready(true);
    log_line("info", "listening",
             {{"address", Value::string(so.address)},
              {"port", Value::integer(server->port())},
              {"tls", Value::boolean(tls != nullptr)},
              {"mtls", Value::boolean(!o.client_ca.empty())},
              {"decision", Value::string(o.decision)},
              {"config_hash", Value::string(store->current()->config_hash)}});
    server->run(true);
    if (events) events->stop();
    log_line("info", "stopped");
    return 0;
}

}  // namespace

void add_serve_command(CLI::App& app) {
    auto opts = std::make_shared<ServeCliOptions>();
    auto* cmd = app.add_subcommand("serve", "Run the Kubernetes admission webhook and OPA-compatible REST API");
    cmd->add_option("--policies", opts->policies, "Directory of policies (and data files); watched and hot-reloaded");
    cmd->add_option("--data", opts->data, "Directory of data files (JSON/YAML); watched and hot-reloaded");
    cmd->add_option("--addr", opts->addr, "Listen address host:port (:0 picks a free port)")->capture_default_str();
    cmd->add_option("--tls-cert", opts->tls_cert, "Certificate chain (PEM); re-read when it changes");
    cmd->add_option("--tls-key", opts->tls_key, "Private key (PEM)");
    cmd->add_option("--tls-san", opts->tls_san, "Names for the self-signed certificate")->delimiter(',')->capture_default_str();
    cmd->add_option("--ca-dump", opts->ca_dump, "Write the serving (self-signed) certificate here, for caBundle");
    cmd->add_option("--client-ca", opts->client_ca, "Require client certificates signed by this CA (mTLS)");
    cmd->add_flag("--insecure-http", opts->insecure_http, "Serve plain HTTP (local debugging only)");
    cmd->add_option("--decision", opts->decision, "What POST / evaluates")->capture_default_str();
    cmd->add_option("--eval-timeout", opts->eval_timeout, "Evaluation time limit")->capture_default_str();
    cmd->add_flag("--fail-open", opts->fail_open, "Allow (with a warning) when evaluation fails");
    cmd->add_flag("--v0-compatible", opts->v0_compatible, "Parse the pre-1.0 Rego dialect");
    cmd->add_option("--threads", opts->threads, "Worker threads (0: one per core)");
    cmd->add_option("--max-body", opts->max_body, "Request body limit in bytes (413 beyond)")->capture_default_str();
    cmd->add_option("--header-timeout", opts->header_timeout, "Time limit for a request's headers; keep-alive idle limit")
        ->capture_default_str();
    cmd->add_option("--body-timeout", opts->body_timeout, "Time limit for a request's body")->capture_default_str();
    cmd->add_option("--shutdown-grace", opts->shutdown_grace, "How long requests in flight may finish at shutdown")
        ->capture_default_str();
    cmd->add_option("--reload-interval", opts->reload_interval, "How often the directories are checked")->capture_default_str();
    cmd->add_option("--authentication", opts->authentication, "off or token (bearer token for /v1/*)")->capture_default_str();
    cmd->add_option("--token-file", opts->token_file, "File holding the bearer token");
    cmd->add_flag("--decision-log", opts->decision_log, "One JSON line per admission decision on stdout");
    cmd->add_flag("--input-http", opts->input_http, "Expose request headers and client certificate subject as input.http");
    cmd->callback([opts] { exit_status() = run_serve(*opts); });
}

}  // namespace gavel::cli
