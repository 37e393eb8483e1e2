#pragma once
// OPA's REST API, answered as OPA 1.x answers it: the same routes (Go's
// ServeMux rules: 301 for a trailing slash, 405 for a known path with another
// method, Go's plain 404), the same status codes, error bodies
// ({"code","message","errors"} indented, with a trailing newline), the same
// query parameters (input, pretty, metrics, instrument, provenance, explain,
// strict-builtin-errors), request bodies in JSON, YAML or gzip, and
// system.authz (--authorization=basic) with OPA's input document.
//
//   main router:        /v1/data, /v0/data, /v1/policies, /v1/query, /v1/compile,
//                       /v1/config, /v1/status, POST / (the default decision), GET /,
//                       /health, /health/<path> (system.health), /metrics
//   diagnostic router:  /health, /health/<path>, /metrics
//
// The handlers run on whatever thread calls handle(); the Service decides
// which (network thread, evaluation pool or the writers' pool) by classify().

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "webhook/http_message.hpp"
#include "webhook/plugins/decision_logger.hpp"
#include "webhook/policy_store.hpp"

namespace gavel::webhook::opa_api {

enum class Authentication { Off, Token, Tls };

struct ApiSettings {
    std::string default_decision = "/system/main";               // POST / (config default_decision)
    std::string authorization_decision = "/system/authz/allow";  // config default_authorization_decision
    Authentication authentication = Authentication::Off;
    bool authorization = false;                // --authorization=basic
    std::chrono::nanoseconds eval_timeout{0};  // 0: none (OPA has none)
    std::uint64_t eval_memory_limit = 0;
    std::string version;          // provenance
    bool decision_ids = false;    // decision logs configured: responses carry ids
    bool v0_compatible = false;   // PUT /v1/policies and queries
    std::size_t max_errors = 10;  // compile errors listed (--max-errors)
    // gavel serve: /health/live and /health/ready answer as liveness and readiness
    // (200, or 503 when not ready) when no system.health rule defines them; gavel run
    // --server answers as OPA (500: undefined).
    bool builtin_health_paths = true;
    // OPA's server.decoding limits: a request body beyond max_request_bytes is refused
    // ("request body too large"), a gzip body that would inflate beyond max_inflated_bytes too.
    std::size_t max_request_bytes = std::size_t(256) << 20;
    std::size_t max_inflated_bytes = std::size_t(512) << 20;
};

// What the API needs from the rest of the server.
struct ApiHooks {
    std::function<bool()> ready;                                        // bundles activated once, not shutting down
    std::function<std::map<std::string, std::string>()> plugin_states;  // plugin name -> "OK", "NOT_READY" ...
    std::function<std::string()> metrics_text;                          // /metrics
    std::function<std::string()> config_json;                           // /v1/config: the active config (compact JSON)
    std::function<std::optional<std::string>()> status_json;  // /v1/status: null when the status plugin is off
    std::function<void()> after_data_write;                   // e.g. Gatekeeper's inventory
    std::function<void(std::string_view line, const std::string& decision_id)> print;  // print() in policies
    std::shared_ptr<plugins::DecisionLogger> decision_logger;
};

enum class Router { Main, Diagnostic };

class OpaApi {
public:
    OpaApi(ApiSettings settings, ApiHooks hooks, std::shared_ptr<PolicyStore> store);

    // Where a request runs: at once on the network thread, as an evaluation, or as a write.
    enum class Work { Immediate, Read, Write };
    Work classify(Router router, const HttpRequest& req) const;

    // The metrics label of the request's handler, as OPA's http_request_duration_seconds has it
    // ("v1/data", "v1/policies", "health", "index", "catchall" ...).
    std::string handler_label(Router router, const HttpRequest& req) const;

    // Answers the request; `cancel` stops an evaluation from another thread; `timeout`
    // (when not zero) replaces the settings' evaluation time limit (what a queue left of it).
    // `instrumented` (when given) gets the handler labels OPA's Prometheus instrumentation
    // records the request under, outermost first: "authz" when --authorization=basic wraps
    // the router, then the route's own unless the authorizer refused; none for what OPA's
    // handlers never see (the decoding limits' refusal, Go's 404 and 405, /metrics).
    HttpResponse handle(Router router, HttpRequest& req, const std::atomic<bool>* cancel,
                        std::chrono::nanoseconds timeout = std::chrono::nanoseconds(0),
                        std::vector<std::string>* instrumented = nullptr);

    const ApiSettings& settings() const { return settings_; }

    struct Route;  // router.cpp

private:
    friend struct Handlers;
    ApiSettings settings_;
    ApiHooks hooks_;
    std::shared_ptr<PolicyStore> store_;

    // OPA's prepared-query cache, emulated for the metrics it reports
    // (counter_server_query_cache_hit, whether a compile timer appears): keys
    // as OPA's, dropped whenever the store changes.
    std::mutex cache_mutex_;
    std::uint64_t cache_generation_ = 0;
    std::set<std::string> cache_keys_;
    std::vector<std::string> cache_order_;
    std::size_t cache_next_ = 0;
    bool cache_lookup(const std::string& key, std::uint64_t generation);

    // The health policies' input: plugins ready once stays true (OPA's allPluginsOkOnce).
    std::atomic<bool> all_plugins_ok_once_{false};
};

}  // namespace gavel::webhook::opa_api
