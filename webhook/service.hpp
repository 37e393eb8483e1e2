#pragma once
// What the server answers, on which listener, and on which thread.
//
// Admission listener (--addr, TLS, the API server calls it):
//   POST /                         AdmissionReview -> the decision (default data.system.main)
//   POST /validate/<pkg path>      AdmissionReview -> response from the package's conventional rules
//   POST /mutate/<pkg path>        same; patches come back as a base64 JSONPatch
//   POST /gatekeeper               AdmissionReview -> Gatekeeper's constraints (serve --gatekeeper)
// REST listener (--rest-addr, loopback by default: kube-mgmt, operators):
//   GET|POST /v1/data/<path>       {"result": value} ({} when undefined); POST takes {"input": ...}
//   PUT /v1/data/<path>            replace the document (204; If-None-Match: * -> 304 when present)
//   PATCH /v1/data/<path>          JSON Patch below the path (204)
//   DELETE /v1/data/<path>         204, 404 when absent
//   GET /v1/policies[/<id>]        {"result": [{"id","raw"}]} / {"result": {"id","raw"}}
//   PUT /v1/policies/<id>          raw Rego body -> {} or 400 with the compile errors
//   DELETE /v1/policies/<id>       {} or 404
//   GET|POST /v1/query             ad-hoc query -> {"result": [bindings...]}
//   With a token configured, every request needs "Authorization: Bearer <token>" (401 otherwise).
// Diagnostic listener (--diagnostic-addr, plain HTTP, for kubelet and Prometheus):
//   GET /health                    live; /health?bundles, /health?plugins and /health/ready: ready
//   GET /metrics                   Prometheus text
// Anything else is a 404 that names the listener serving it.
//
// Health and metrics are answered at once on the network thread. Admission
// requests run on the evaluation pool, REST API requests on the REST pool (so
// that a large data sync never takes an admission's worker); when a pool's
// queue is full the answer comes at once: the configured failure decision for
// admission (deny with code 500, or allow with --fail-open), 503 for the REST API.
// Time spent waiting in a queue counts against --eval-timeout.

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "webhook/gatekeeper_policies.hpp"
#include "webhook/http_message.hpp"
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
    bool fail_open = false;     // evaluation errors allow (with a warning) instead of deny
    bool input_http = false;    // add request headers and the client certificate subject as input.http
    bool decision_log = false;  // (cmd_serve turns it into a console DecisionLogger)
    std::string token;          // non-empty: bearer token required on the REST listener
    // --gatekeeper: POST /gatekeeper answers from Gatekeeper's constraints (and POST / too
    // when `gatekeeper_on_root`); data.inventory writes rebuild them.
    std::shared_ptr<GatekeeperPolicies> gatekeeper;
    bool gatekeeper_on_root = false;
};

enum class Listener { Admission, Rest, Diagnostic };

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
    void set_decision_logger(std::shared_ptr<plugins::DecisionLogger> logger) { decision_logger_ = std::move(logger); }

    struct Route;

private:
    Route route(Listener listener, const HttpRequest& req) const;
    HttpResponse execute(const Route& route, HttpRequest& req, const std::atomic<bool>* cancel, std::string& decision);
    HttpResponse overloaded(const Route& route, HttpRequest& req, const WorkerPool& pool, std::string& decision);
    void finish(const Route& route, const std::string& decision, std::chrono::steady_clock::time_point start,
                const HttpResponse& resp, std::size_t request_bytes);

    HttpResponse admission(HttpRequest& req, const Route& route, const std::atomic<bool>* cancel, std::string& decision_label);
    HttpResponse data_api(HttpRequest& req, const std::vector<std::string>& path, const std::atomic<bool>* cancel);
    HttpResponse policies_api(HttpRequest& req, const std::string& id);
    HttpResponse query_api(HttpRequest& req, const std::atomic<bool>* cancel);
    HttpResponse health(bool readiness);
    // After a data write: data.inventory goes to the Gatekeeper constraints.
    void sync_gatekeeper_inventory();
    // --eval-timeout less the time the request waited for a worker; false when none is left.
    bool eval_time_left(const HttpRequest& req, std::chrono::nanoseconds& left) const;

    ServiceOptions options_;
    std::shared_ptr<PolicyStore> store_;
    std::shared_ptr<Metrics> metrics_;
    std::shared_ptr<WorkerPool> eval_pool_, rest_pool_;
    std::atomic<bool> ready_{false};
    std::atomic<bool> bundles_ready_{true};
    std::shared_ptr<plugins::DecisionLogger> decision_logger_;
    std::atomic<std::int64_t> last_overload_log_{0};  // steady_clock seconds: overloads are logged once a second
};

// "/a/b%2Fc/" -> {"a", "b/c"}; false on a bad percent escape. Iterative; the caller bounds the depth.
bool split_path(std::string_view path, std::vector<std::string>& out);
std::string percent_decode_query_value(std::string_view query, std::string_view key, bool& found);

}  // namespace gavel::webhook
