#pragma once
// What the server answers, on which listener, and on which thread.
//
// Admission listener (gavel serve --addr, TLS, the API server calls it):
//   POST /                         AdmissionReview -> the decision (default data.system.main)
//   POST /validate/<pkg path>      AdmissionReview -> response from the package's conventional rules
//   POST /mutate/<pkg path>        same; patches come back as a base64 JSONPatch
//   POST /gatekeeper               AdmissionReview -> Gatekeeper's constraints (serve --gatekeeper)
// REST listener (gavel serve --rest-addr) and API listeners (gavel run --server --addr):
//   OPA's REST API as OPA answers it (webhook/opa_api/api.hpp): /v1/data, /v0/data, /v1/policies,
//   /v1/query, /v1/compile, /v1/config, /v1/status, POST /, /health, /metrics. gavel serve's
//   --authentication token requires "Authorization: Bearer <token>" first (401 otherwise).
// Diagnostic listener (--diagnostic-addr, plain HTTP, for kubelet and Prometheus):
//   OPA's diagnostic routes: /health, /health/<path>, /metrics
// Anything else is a 404 (the admission listener's names the listener serving it).
//
// Health and metrics are answered at once on the network thread. Admission
// requests and the API's evaluations run on the evaluation pool (gavel serve's
// REST listener: on the REST pool, so that a large data sync or an operator's
// query never takes an admission's worker); writes to policies and data on the
// REST pool. When a pool's queue is full the answer comes at once: the
// configured failure decision for admission (deny with code 500, or allow with
// --fail-open), 503 for the API. Time spent waiting in a queue counts against
// --eval-timeout.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "webhook/gatekeeper_policies.hpp"
#include "webhook/http_message.hpp"
#include "webhook/opa_api/api.hpp"
#include "webhook/metrics.hpp"
#include "webhook/plugins/decision_logger.hpp"
#include "webhook/policy_store.hpp"
#include "webhook/server.hpp"
#include "webhook/worker_pool.hpp"

namespace gavel::webhook {

struct ServiceOptions {
    std::string decision = "data.system.main";  // what POST / evaluates
    std::chrono::milliseconds eval_timeout{5000};
    std::uint64_t eval_memory_limit = 0;  // bytes one evaluation may take (EvalOptions::max_memory); 0: none
    bool fail_open = false;               // evaluation errors allow (with a warning) instead of deny
    bool input_http = false;              // add request headers and the client certificate subject as input.http
    std::string token;                    // non-empty: bearer token required on the REST listener (gavel serve)
    // --gatekeeper: POST /gatekeeper answers from Gatekeeper's constraints (and POST / too
    // when `gatekeeper_on_root`); data.inventory writes rebuild them.
    std::shared_ptr<GatekeeperPolicies> gatekeeper;
    bool gatekeeper_on_root = false;
    // OPA's REST API: its settings (limits, authorization, default decision ...).
    opa_api::ApiSettings api;
};

// What a listener serves: admission reviews (gavel serve), OPA's REST API (gavel
// serve's REST listener: evaluations on the REST pool; gavel run --server's API
// listeners: evaluations on the evaluation pool), or health and metrics.
enum class Listener { Admission, Rest, Api, Diagnostic };

class Service : public std::enable_shared_from_this<Service> {
public:
    Service(ServiceOptions options, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics);

    // Where work runs: admission on `eval`, the REST API on `rest`. Without pools
    // (unit tests) everything runs on the calling thread.
    void set_pools(std::shared_ptr<WorkerPool> eval, std::shared_ptr<WorkerPool> rest);

    // Answers a request that arrived on `listener`; `respond` is called exactly once, from
    // this thread or a worker's. The Service must be owned by a shared_ptr.
    void handle(Listener listener, HttpRequest req, Respond respond);
    // The same on the calling thread, pools or not.
    HttpResponse handle_now(Listener listener, HttpRequest& req);

    void set_ready(bool ready) { ready_ = ready; }
    // Ready: started, not shutting down, and every configured bundle activated once.
    bool ready() const { return ready_ && bundles_ready_; }
    void set_bundles_ready(bool ready) { bundles_ready_ = ready; }
    // Where decisions are logged (OPA's decision_logs; --decision-log is its console form).
    void set_decision_logger(std::shared_ptr<plugins::DecisionLogger> logger);
    // What only the assembly knows: plugin states, the active configuration, the status report.
    void set_api_hooks(std::function<std::map<std::string, std::string>()> plugin_states,
                       std::function<std::string()> config_json,
                       std::function<std::optional<std::string>()> status_json);

    struct Route;
    struct Outcome;  // what the metrics learn from answering: the decision, the handlers that ran

private:
    Route route(Listener listener, const HttpRequest& req) const;
    HttpResponse execute(const Route& route, HttpRequest& req, const std::atomic<bool>* cancel, Outcome& outcome);
    HttpResponse overloaded(const Route& route, HttpRequest& req, const WorkerPool& pool, Outcome& outcome);
    void finish(const Route& route, const Outcome& outcome, std::chrono::steady_clock::time_point start,
                const HttpResponse& resp, std::size_t request_bytes, bool cancelled = false);

    HttpResponse admission(HttpRequest& req, const Route& route, const std::atomic<bool>* cancel,
                           std::string& decision_label);
    // After a data write: data.inventory goes to the Gatekeeper constraints.
    void sync_gatekeeper_inventory();
    // --eval-timeout less the time the request waited for a worker; false when none is left.
    bool eval_time_left(const HttpRequest& req, std::chrono::nanoseconds& left) const;
    std::string metrics_text() const;
    void rebuild_api();

    ServiceOptions options_;
    std::shared_ptr<PolicyStore> store_;
    std::shared_ptr<Metrics> metrics_;
    std::shared_ptr<WorkerPool> eval_pool_, rest_pool_;
    std::atomic<bool> ready_{false};
    std::atomic<bool> bundles_ready_{true};
    std::shared_ptr<plugins::DecisionLogger> decision_logger_;
    std::function<std::map<std::string, std::string>()> plugin_states_;
    std::function<std::string()> config_json_;
    std::function<std::optional<std::string>()> status_json_;
    std::unique_ptr<opa_api::OpaApi> api_;
    std::atomic<std::int64_t> last_overload_log_{0};  // steady_clock seconds: overloads are logged once a second
};

// "/a/b%2Fc/" -> {"a", "b/c"}; false on a bad percent escape. Iterative; the caller bounds the depth.
bool split_path(std::string_view path, std::vector<std::string>& out);

}  // namespace gavel::webhook
