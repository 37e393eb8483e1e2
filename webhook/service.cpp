#include "webhook/service.hpp"

#include "runtime/json.hpp"
#include "webhook/admission.hpp"
#include "webhook/opa_api/responses.hpp"
#include "webhook/large_json.hpp"
#include "webhook/log.hpp"
#include "webhook/memory.hpp"
#include "webhook/service_route.hpp"
#include "webhook/value_text.hpp"

namespace gavel::webhook {

using runtime::Value;
using Clock = std::chrono::steady_clock;

using opa_api::error_response;

std::string waited_text(const HttpRequest& req) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - req.received).count();
    return std::to_string(ms) + " ms";
}

Service::Service(ServiceOptions options, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics)
    : options_(std::move(options)), store_(std::move(store)), metrics_(std::move(metrics)) {
    rebuild_api();
}

void Service::set_decision_logger(std::shared_ptr<plugins::DecisionLogger> logger) {
    decision_logger_ = std::move(logger);
    rebuild_api();
}

void Service::set_api_hooks(std::function<std::map<std::string, std::string>()> plugin_states,
                            std::function<std::string()> config_json,
                            std::function<std::optional<std::string>()> status_json) {
    plugin_states_ = std::move(plugin_states);
    config_json_ = std::move(config_json);
    status_json_ = std::move(status_json);
    rebuild_api();
}

// The API's view of the server; built before serving (set_* are called during assembly).
void Service::rebuild_api() {
    opa_api::ApiHooks hooks;
    hooks.ready = [this] { return ready(); };
    hooks.plugin_states = plugin_states_;
    hooks.metrics_text = [this] { return metrics_text(); };
    hooks.config_json = config_json_;
    hooks.status_json = status_json_;
    hooks.after_data_write = [this] { sync_gatekeeper_inventory(); };
    hooks.print = [](std::string_view line, const std::string& decision_id) {
        if (decision_id.empty()) log_line("info", line);
        else log_line("info", line, {{"decision_id", Value::string(decision_id)}});
    };
    hooks.decision_logger = decision_logger_;
    opa_api::ApiSettings settings = options_.api;
    settings.eval_timeout = options_.eval_timeout;
    settings.eval_memory_limit = options_.eval_memory_limit;
    settings.decision_ids = settings.decision_ids || decision_logger_ != nullptr;
    api_ = std::make_unique<opa_api::OpaApi>(settings, std::move(hooks), store_);
}

std::string Service::metrics_text() const {
    std::string body = metrics_->render(ready(), store_->current()->config_hash);
    if (eval_pool_) body += eval_pool_->render_metrics();
    if (options_.gatekeeper) body += options_.gatekeeper->render_metrics();
    if (rest_pool_) body += rest_pool_->render_metrics();
    return body;
}

void Service::set_pools(std::shared_ptr<WorkerPool> eval, std::shared_ptr<WorkerPool> rest) {
    eval_pool_ = std::move(eval);
    rest_pool_ = std::move(rest);
}

void Service::handle(Listener listener, HttpRequest req, Respond respond) {
    auto start = Clock::now();
    metrics_->request_started();
    Route r = route(listener, req);
    WorkerPool* pool = nullptr;
    using Work = opa_api::OpaApi::Work;
    if (r.kind == Route::Kind::Admission) pool = eval_pool_.get();
    else if (r.kind == Route::Kind::Api && r.work == Work::Write) pool = rest_pool_.get();
    else if (r.kind == Route::Kind::Api && r.work == Work::Read)
        pool = r.listener == Listener::Api ? eval_pool_.get() : rest_pool_.get();
    if (!pool) {
        Outcome outcome;
        HttpResponse resp = execute(r, req, nullptr, outcome);
        finish(r, outcome, start, resp, req.body.size());
        return respond(std::move(resp));
    }
    struct Pending {
        Route route;
        HttpRequest req;
        Respond respond;
    };
    auto pending = std::make_shared<Pending>(Pending{std::move(r), std::move(req), std::move(respond)});
    WorkerPool::Task task = [self = shared_from_this(), pending, start](const std::atomic<bool>& cancel) {
        Outcome outcome;
        HttpResponse resp = self->execute(pending->route, pending->req, &cancel, outcome);
        std::size_t bytes = pending->req.body.size();
        pending->req = HttpRequest{};  // the body goes before the answer leaves
        self->finish(pending->route, outcome, start, resp, bytes, cancel.load());
        pending->respond(std::move(resp));
    };
    if (pool->try_submit(task)) return;
    Outcome outcome;
    HttpResponse resp = overloaded(pending->route, pending->req, *pool, outcome);
    finish(pending->route, outcome, start, resp, pending->req.body.size());
    pending->respond(std::move(resp));
}

HttpResponse Service::handle_now(Listener listener, HttpRequest& req) {
    auto start = Clock::now();
    metrics_->request_started();
    Route r = route(listener, req);
    Outcome outcome;
    HttpResponse resp = execute(r, req, nullptr, outcome);
    finish(r, outcome, start, resp, req.body.size());
    return resp;
}

HttpResponse Service::execute(const Route& r, HttpRequest& req, const std::atomic<bool>* cancel, Outcome& outcome) {
    using Kind = Route::Kind;
    switch (r.kind) {
        case Kind::Answer: return r.answer;
        case Kind::Admission: return admission(req, r, cancel, outcome.decision);
        case Kind::Api: {
            // Time spent waiting for a worker counts against the evaluation's limit.
            std::chrono::nanoseconds left{0};
            if (options_.eval_timeout.count() > 0) {
                left = options_.eval_timeout - (Clock::now() - req.received);
                if (left.count() <= 0)
                    return error_response(500, "internal_error",
                                          "evaluation timed out (waited " + waited_text(req) + " for a worker)");
            }
            outcome.api_handled = true;
            return api_->handle(r.router, req, cancel, left, &outcome.instrumented);
        }
    }
    return error_response(500, "internal_error", "unroutable request");
}

HttpResponse Service::overloaded(const Route& r, HttpRequest& req, const WorkerPool& pool, Outcome& outcome) {
    std::string message = "server busy: all " + std::to_string(pool.workers()) + " workers are busy and " +
                          std::to_string(pool.queue_limit()) + " requests wait already";
    // Once a second at most: an overload must not turn into a flood of log lines.
    auto now_s = std::chrono::duration_cast<std::chrono::seconds>(Clock::now().time_since_epoch()).count();
    auto last = last_overload_log_.load();
    if (now_s != last && last_overload_log_.compare_exchange_strong(last, now_s))
        log_line("warn", "queue full; answering at once", {{"endpoint", str(r.endpoint)}, {"error", str(message)}});
    if (r.kind != Route::Kind::Admission) {
        HttpResponse resp = error_response(503, "unavailable", message + "; retry later");
        resp.headers.emplace_back("Retry-After", "1");
        return resp;
    }
    // The API server gets a whole AdmissionReview, decided as evaluation errors are (--fail-open).
    ReviewRequest review;
    std::string error;
    if (!parse_review(req.body, review, error)) return error_response(400, "invalid_parameter", error);
    outcome.decision = "error";
    AdmissionDecision d = error_decision(review, message, options_.fail_open);
    return HttpResponse::json(200, runtime::to_json(d.review));
}

void Service::finish(const Route& r, const Outcome& outcome, Clock::time_point start, const HttpResponse& resp,
                     std::size_t request_bytes, bool cancelled) {
    auto elapsed = Clock::now() - start;
    metrics_->request_finished();
    metrics_->record_request(r.endpoint, outcome.decision, resp.status, elapsed);
    // OPA's http_request_duration_seconds: under each OPA handler that served the request. An
    // admission review counts as OPA's POST / ("index") or, for gavel's own paths, their name;
    // an API request answered before the API saw it (queue full, no time left) under its route.
    auto opa = [&](std::string_view handler) {
        metrics_->record_opa_request(handler, resp.status, r.method, elapsed, cancelled);
    };
    if (r.kind == Route::Kind::Admission) opa(r.mode == "main" ? "index" : r.mode);
    else if (r.kind == Route::Kind::Api && outcome.api_handled)
        for (const auto& handler : outcome.instrumented) opa(handler);
    else if (r.kind == Route::Kind::Api && !r.opa_handler.empty()) opa(r.opa_handler);
    if (request_bytes >= kLargeRequestBytes || resp.body.size() >= kLargeRequestBytes) request_memory_release();
}

bool Service::eval_time_left(const HttpRequest& req, std::chrono::nanoseconds& left) const {
    left = std::chrono::nanoseconds(0);  // no limit
    if (options_.eval_timeout.count() <= 0) return true;
    left = options_.eval_timeout - (Clock::now() - req.received);
    return left.count() > 0;
}

void Service::sync_gatekeeper_inventory() {
    if (!options_.gatekeeper) return;
    const Value* inventory = store_->current()->data.find("inventory");
    lang::Diagnostics errors;
    if (!options_.gatekeeper->set_inventory(inventory ? *inventory : Value(), errors))
        log_line(
            "error",
            "data.inventory changed but the Gatekeeper templates do not compile with it; the previous inventory stays",
            {{"error", str(errors.empty() ? std::string() : errors.items().front().message)}});
}

}  // namespace gavel::webhook
