#pragma once
// The server as a whole, assembled from its parts: listeners, TLS, the policy
// store and where its content comes from (directories, bundles, a bundle service,
// Gatekeeper templates), worker pools, reload, certificate rotation, decision
// logs and status, managed webhook configurations, and the shutdown sequence.
//
// Both server commands are this one assembly with different listeners:
//   gavel serve         an admission listener (TLS), OPA's REST API on loopback
//                       and a diagnostic listener, each on threads of its own;
//   gavel run --server  OPA's layout: every --addr serves OPA's whole API,
//                       every --diagnostic-addr health and metrics.
// The command line only fills ServerAssemblyOptions; run_server() does the rest.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"
#include "engine/engine.hpp"
#include "webhook/kubernetes_resources.hpp"
#include "webhook/listen_address.hpp"
#include "webhook/service.hpp"
#include "webhook/tls.hpp"

namespace gavel::webhook {

struct ListenerConfig {
    Listener role = Listener::Rest;
    std::string name;       // in logs: "admission", "rest", "diagnostic", "api"
    std::string flag;       // the flag that set it, for messages ("--rest-addr")
    ListenAddress address;  // where, and whether TLS
    unsigned threads = 1;   // network threads (0: one per core)
    std::size_t body_limit = 3u << 20;
    std::size_t body_budget = 0;        // 0: the server's default
    std::size_t max_connections = 512;  // open at once; 0: no limit (ServerOptions::max_connections)
};

// --manage-webhooks: gavel registers its own webhook configurations.
struct ManagedWebhookSettings {
    std::string name;
    bool persistent = false;
    std::string url;  // or the Service:
    std::string service_namespace, service_name;
    std::map<std::string, ApiResource> resources;  // --webhook-resource KIND=GROUP/VERSION/RESOURCE
    std::string ca_bundle_file;
};

struct ServerAssemblyOptions {
    std::string command = "gavel serve";  // names the command in start-up errors
    std::string version, build_commit;    // for metrics, status labels and provenance
    std::vector<ListenerConfig> listeners;

    // What is served. `policy_paths` are loaded at start (a broken policy fails the
    // start) and, when `watch`, reloaded when their content changes.
    std::vector<std::string> policy_paths;
    std::vector<std::string> ignore;  // names left out while loading (OPA's --ignore)
    bool watch = true;
    // gavel run --server: OPA's runtime (data.system.version; /health/<path> only through
    // system.health policies).
    bool opa_runtime = false;
    std::chrono::milliseconds reload_interval{1000};
    std::vector<std::string> bundles;               // -b: bundle directories or .tar.gz files
    engine::bundle::BundleReadOptions bundle_read;  // its `verification` comes from bundle_verification
    std::optional<engine::bundle::VerificationConfig> bundle_verification;
    std::vector<std::string> gatekeeper_dirs;
    EngineOptions engine;

    // OPA's configuration file and its overrides (--set a.b=v, --set-file a.b=FILE).
    std::string config_file;
    std::vector<std::string> config_set, config_set_file;

    // TLS for the listeners that want it. Without files, `self_signed` makes a
    // certificate at start (gavel serve); otherwise TLS listeners need the files.
    TlsOptions tls;
    bool self_signed = true;
    std::string ca_dump;  // write the serving certificate here
    std::chrono::milliseconds tls_refresh{1000};
    unsigned unix_socket_mode = 0755;  // unix:// listeners' socket files (OPA's --unix-socket-perm)

    ServiceOptions service;
    std::string token_file;  // --authentication token (gavel serve): the bearer token's file

    unsigned eval_workers = 0;  // 0: one per core
    std::size_t eval_queue = 128;
    std::size_t rest_queue = 256;
    std::chrono::milliseconds header_timeout{10000}, body_timeout{10000};
    std::chrono::milliseconds shutdown_grace{30000}, shutdown_wait{0};

    std::optional<ManagedWebhookSettings> managed_webhooks;
    bool decision_log_console = false;  // --decision-log
};

// Builds everything, serves until SIGTERM/SIGINT and the shutdown is done; the
// process's exit status. Start-up errors are printed to stderr and give 1.
int run_server(const ServerAssemblyOptions& options);

}  // namespace gavel::webhook
