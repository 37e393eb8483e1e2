#include "webhook/service.hpp"
#include "support/random_uuid.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

#include "runtime/json.hpp"
#include "engine/loader.hpp"
#include "webhook/admission.hpp"
#include "webhook/opa_api/responses.hpp"
#include "webhook/opa_api/url_query.hpp"
#include "webhook/large_json.hpp"
#include "webhook/log.hpp"
#include "webhook/memory.hpp"
#include "webhook/path_limits.hpp"
#include "webhook/value_text.hpp"

namespace gavel::webhook {

using runtime::Value;
using Clock = std::chrono::steady_clock;

namespace {

// gavel's own refusals on the admission listener (and before the API): OPA's error body.
HttpResponse error_response(int status, std::string_view code, std::string_view message) {
    return opa_api::error_response(status, code, message);
}

std::string waited_text(const HttpRequest& req) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - req.received).count();
    return std::to_string(ms) + " ms";
}

std::string eval_error_text(const EvalError& e) {
    // A cancelled evaluation ran out of time, unless its message says it ran out of memory.
    if (e.code == "eval_cancel_error")
        return e.message.starts_with("evaluation exceeded its memory limit") ? e.message : "evaluation timed out (" + e.message + ")";
    return e.to_string();
}

}  // namespace

bool split_path(std::string_view path, std::vector<std::string>& out) {
    out.clear();
    while (!path.empty()) {
        if (path.front() == '/') {
            path.remove_prefix(1);
            continue;
        }
        auto slash = path.find('/');
        std::string seg;
        if (!opa_api::percent_decode(path.substr(0, slash), seg, false)) return false;
        out.push_back(std::move(seg));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash);
    }
    return true;
}

struct Service::Route {
    enum class Kind { Answer, Admission, Api } kind = Kind::Answer;
    std::string endpoint = "other";  // the metrics label
    std::string method;              // the request's, for the metrics
    HttpResponse answer;             // Kind::Answer: the whole response (404, 401 ...)
    std::string mode;                // admission: "main", "validate" or "mutate"
    std::vector<std::string> path;   // admission: the package
    opa_api::Router router = opa_api::Router::Main;  // Kind::Api
    std::string opa_handler;         // Kind::Api: OPA's handler label of the route ("" for none, or /metrics)
    opa_api::OpaApi::Work work = opa_api::OpaApi::Work::Immediate;
    Listener listener = Listener::Admission;
};

struct Service::Outcome {
    std::string decision;                  // admission: "allowed", "denied", "error"
    bool api_handled = false;              // the OPA API answered (not a refusal before it)
    std::vector<std::string> instrumented; // then: the handlers OPA's instrumentation records
};

Service::Service(ServiceOptions options, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics)
    : options_(std::move(options)), store_(std::move(store)), metrics_(std::move(metrics)) {
    rebuild_api();
}

void Service::set_decision_logger(std::shared_ptr<plugins::DecisionLogger> logger) {
    decision_logger_ = std::move(logger);
    rebuild_api();
}

void Service::set_api_hooks(std::function<std::map<std::string, std::string>()> plugin_states, std::function<std::string()> config_json,
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

Service::Route Service::route(Listener listener, const HttpRequest& req) const {
    using Kind = Route::Kind;
    Route r;
    r.method = req.method;
    r.listener = listener;
    auto answer = [&r](HttpResponse resp) {
        r.kind = Kind::Answer;
        r.answer = std::move(resp);
        return std::move(r);
    };
    std::vector<std::string> segments;
    std::string_view path = req.path();
    if (!split_path(path, segments)) {
        if (listener == Listener::Admission) return answer(error_response(400, "invalid_parameter", "invalid percent-encoding in the path"));
        HttpResponse bad;  // Go's net/http: a request URI it cannot unescape
        bad.status = 400;
        bad.content_type = "text/plain; charset=utf-8";
        bad.body = "400 Bad Request";
        return answer(std::move(bad));
    }
    // A document or package path (after /v1/data/ or /validate/) nests at most kMaxPathSegments deep.
    // (Admission: after /validate/ ...; the API: after /v1/data/ ...)
    std::size_t below = listener == Listener::Admission ? 1 : 2;
    if (segments.size() > kMaxPathSegments + below)
        return answer(error_response(400, "invalid_parameter",
                                     "path too deep: " + std::to_string(segments.size() - below) + " segments (the limit is " +
                                         std::to_string(kMaxPathSegments) + ")"));
    std::string_view first = segments.empty() ? std::string_view{} : std::string_view(segments[0]);

    if (listener != Listener::Admission) {
        r.kind = Kind::Api;
        r.router = listener == Listener::Diagnostic ? opa_api::Router::Diagnostic : opa_api::Router::Main;
        r.work = api_->classify(r.router, req);
        // gavel's endpoint label: the OPA handler's path ("/v1/data", "/health"; "/" for OPA's "index").
        r.opa_handler = api_->handler_label(r.router, req);
        std::string label = r.opa_handler;
        if (label.empty()) label = first == "metrics" ? "metrics" : "other";
        r.endpoint = label == "index" ? "/" : label == "other" ? label : "/" + label;
        if (listener == Listener::Rest && !options_.token.empty()) {
            std::string_view auth = req.header("Authorization");
            std::string expected = "Bearer " + options_.token;
            if (auth.size() != expected.size() || CRYPTO_memcmp(auth.data(), expected.data(), auth.size()) != 0)
                return answer(error_response(401, "unauthorized", "the request requires a valid bearer token"));
        }
        return r;
    }

    bool admission_path = segments.empty() || first == "validate" || first == "mutate" || first == "gatekeeper";
    if (!admission_path) {
        // Name the listener that does serve it: a client (or a probe) on the wrong port learns where to go.
        bool rest_path = first == "v1" || first == "v0";
        bool diagnostic_path = first == "health" || first == "metrics";
        std::string where;
        if (rest_path) where = " (the REST API is served on --rest-addr)";
        else if (diagnostic_path) where = " (health and metrics are served on --diagnostic-addr)";
        return answer(error_response(404, "resource_not_found", "not found: " + std::string(path) + where));
    }
    if (segments.empty()) {
        r.endpoint = "/";
        if (req.method != "POST") return answer(error_response(405, "invalid_parameter", "POST an AdmissionReview to /"));
        r.kind = Kind::Admission;
        r.mode = "main";
        return r;
    }
    r.endpoint = "/" + segments[0];
    if (req.method != "POST") return answer(error_response(405, "invalid_parameter", "POST an AdmissionReview"));
    if (first == "gatekeeper") {
        if (segments.size() != 1 || !options_.gatekeeper)
            return answer(error_response(404, "resource_not_found", "no Gatekeeper constraints here (serve --gatekeeper DIR)"));
        r.kind = Kind::Admission;
        r.mode = "gatekeeper";
        return r;
    }
    if (segments.size() == 1)
        return answer(error_response(404, "resource_not_found", "no package path after /" + segments[0] + "/"));
    r.kind = Kind::Admission;
    r.mode = segments[0];
    r.path.assign(segments.begin() + 1, segments.end());
    return r;
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
                return error_response(500, "internal_error", "evaluation timed out (waited " + waited_text(req) + " for a worker)");
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
    auto opa = [&](std::string_view handler) { metrics_->record_opa_request(handler, resp.status, r.method, elapsed, cancelled); };
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
        log_line("error", "data.inventory changed but the Gatekeeper templates do not compile with it; the previous inventory stays",
                 {{"error", str(errors.empty() ? std::string() : errors.items().front().message)}});
}


namespace {
// A decision's id: a UUID (unique across replicas and restarts, as OPA's),
// made only when something asks for it (a print() line, the decision log).
class DecisionId {
public:
    const std::string& get() {
        if (id_.empty()) id_ = support::random_uuid();
        return id_;
    }

private:
    std::string id_;
};

// Why /validate/<pkg> cannot answer: the package has rules, none of them deny, violation
// or warn; a rule that looks like a misspelt one is named.
std::string no_validating_rule_text(const Snapshot& snap, const std::string& package) {
    std::string text = "package " + package + " defines no deny or violation rule";
    for (const auto& m : snap.misspelt_rules)
        if (m.package == package) text += " (" + misspelling_text(m) + ")";
    return text;
}

// print() in a policy: one log line per call, with the decision it belongs to.
// (`id` outlives the evaluation: both live in the request's handler.)
std::function<void(std::string_view)> print_to_log(DecisionId& id) {
    return [&id](std::string_view text) { log_line("info", text, {{"decision_id", runtime::Value::string(id.get())}}); };
}
}  // namespace

HttpResponse Service::admission(HttpRequest& req, const Route& route, const std::atomic<bool>* cancel,
                                std::string& decision_label) {
    const std::string& mode = route.mode;
    const std::vector<std::string>& package = route.path;
    ReviewRequest review;
    std::string error;
    if (!parse_review(req.body, review, error)) {
        decision_label = "";
        return error_response(400, "invalid_parameter", error);
    }
    DecisionId decision_id;  // in the decision log and print() lines
    Value input = review.review;
    if (options_.input_http) {
        runtime::ObjectBuilder headers;
        for (const auto& [k, v] : req.headers) {
            std::string lower(k);
            for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            headers.insert(str(lower), str(v));
        }
        runtime::ObjectBuilder b;
        for (const auto& e : input.object_entries()) b.insert(e.key, e.value);
        b.insert(str("http"), Value::object({{str("headers"), headers.build()},
                                             {str("client_subject"), str(req.client_subject)}}));
        input = b.build();
    }
    bool gatekeeper = options_.gatekeeper && (mode == "gatekeeper" || (mode == "main" && options_.gatekeeper_on_root));
    bool main = mode == "main" && !gatekeeper;
    std::string decision_name = main ? options_.decision : engine::data_path_text(package);
    std::string query_text = options_.decision;
    bool known_package = true;
    std::shared_ptr<const Snapshot> snap;
    const std::vector<ConventionalRule>* package_rules = nullptr;  // in *snap
    if (gatekeeper) {
        decision_name = "gatekeeper";
    } else if (!main) {
        snap = store_->current();
        auto it = snap->conventional_rules.find(decision_name);
        known_package = it != snap->conventional_rules.end();
        if (known_package) package_rules = &it->second;
        query_text = known_package ? conventional_rules_query(decision_name, it->second) : "";
    }
    auto q = known_package && !gatekeeper ? store_->query(query_text) : PolicyStore::Query{};
    AdmissionDecision d;
    std::optional<Value> logged_result;
    gavel::Metrics logged_metrics;
    if (gatekeeper) {
        GatekeeperDecisionOptions go;
        go.fail_open = options_.fail_open;
        go.control.cancel = cancel;
        go.control.max_memory = options_.eval_memory_limit;
        go.control.print = print_to_log(decision_id);
        if (std::chrono::nanoseconds left; !eval_time_left(req, left))
            d = error_decision(review, "evaluation timed out (waited " + waited_text(req) + " for a worker)", options_.fail_open);
        else {
            go.control.timeout = left;
            d = gatekeeper_decision(review, *options_.gatekeeper, go);
        }
    } else if (!known_package) {
        d = error_decision(review, "no policy defines package " + decision_name, options_.fail_open);
    } else if (mode == "validate" && !validates(*package_rules)) {
        d = error_decision(review, no_validating_rule_text(*snap, decision_name), options_.fail_open);
    } else if (!q.query) {
        std::string message = "cannot prepare " + decision_name;
        if (!q.errors.empty()) message += ": " + q.errors.items().front().headline();
        d = error_decision(review, message, options_.fail_open);
    } else if (std::chrono::nanoseconds left; !eval_time_left(req, left)) {
        d = error_decision(review, "evaluation timed out (waited " + waited_text(req) + " for a worker)", options_.fail_open);
    } else {
        EvalOptions eo;
        eo.input = &input;
        eo.timeout = left;
        eo.cancel = cancel;
        eo.max_memory = options_.eval_memory_limit;
        eo.print = print_to_log(decision_id);
        EvalResult result = q.query->eval(eo);
        logged_metrics = result.metrics;
        if (result.error) {
            d = error_decision(review, eval_error_text(*result.error), options_.fail_open);
        } else {
            bool defined = !result.rows.empty() && !result.rows[0].expressions.empty();
            Value value = defined ? result.rows[0].expressions[0].value : Value();
            if (defined) logged_result = value;
            d = main ? decision_from_main(review, value, defined, decision_name, options_.fail_open)
                     : decision_from_rules(review, value, options_.fail_open);
        }
    }
    switch (d.outcome) {
    case AdmissionDecision::Outcome::Allowed: decision_label = "allowed"; break;
    case AdmissionDecision::Outcome::Denied: decision_label = "denied"; break;
    case AdmissionDecision::Outcome::Error: decision_label = "error"; break;
    }
    if (d.outcome == AdmissionDecision::Outcome::Error)
        log_line("error", "admission decision failed",
                 {{"uid", review.uid}, {"decision", str(decision_name)}, {"error", str(d.message)}});
    if (decision_logger_) {
        // OPA's event: the decision's path, the input and the result of the query.
        plugins::DecisionEvent event;
        event.path = main ? options_.decision : decision_name;
        if (event.path.rfind("data.", 0) == 0) event.path = event.path.substr(5);
        std::replace(event.path.begin(), event.path.end(), '.', '/');
        event.input = input;
        event.result = logged_result;
        if (d.outcome == AdmissionDecision::Outcome::Error) event.error = d.message;
        event.requested_by = req.remote_addr;
        event.metrics = logged_metrics;
        if (q.snapshot) event.bundles = q.snapshot->bundle_revisions;
        event.decision_id = decision_id.get();
        decision_logger_->log(std::move(event));
    }
    return HttpResponse::json(200, runtime::to_json(d.review));
}




}  // namespace gavel::webhook
