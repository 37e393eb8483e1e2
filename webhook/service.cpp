#include "webhook/service.hpp"
#include "webhook/plugins/uuid.hpp"

#include <openssl/crypto.h>

#include <algorithm>
#include <cctype>

#include "runtime/json.hpp"
#include "engine/loader.hpp"
#include "webhook/admission.hpp"
#include "webhook/large_json.hpp"
#include "webhook/log.hpp"
#include "webhook/memory.hpp"
#include "webhook/path_limits.hpp"

namespace gavel::webhook {

using runtime::Value;
using Clock = std::chrono::steady_clock;

namespace {

Value str(std::string_view s) { return Value::string(s); }

// An error's details object (type errors' have/want) as a value of the response.
Value detail_value(const lang::JsonTree& tree) {
    using K = lang::JsonTree::Kind;
    switch (tree.kind) {
        case K::Null: return Value::null();
        case K::Boolean: return Value::boolean(tree.boolean);
        case K::Number: {
            auto parsed = runtime::parse_json(tree.text);
            return parsed ? parsed.value : str(tree.text);
        }
        case K::String: return str(tree.text);
        case K::Array: {
            runtime::ArrayBuilder list;
            for (const auto& item : tree.items) list.push_back(detail_value(item));
            return list.build();
        }
        case K::Object: {
            runtime::ObjectBuilder object;
            for (const auto& [name, value] : tree.members) object.insert(str(name), detail_value(value));
            return object.build();
        }
    }
    return Value::null();
}

HttpResponse error_response(int status, std::string_view code, std::string_view message,
                            const lang::Diagnostics* errors = nullptr) {
    runtime::ObjectBuilder b;
    b.insert(str("code"), str(code));
    b.insert(str("message"), str(message));
    if (errors && !errors->empty()) {
        runtime::ArrayBuilder list;
        for (const auto& d : *errors) {
            runtime::ObjectBuilder e;
            e.insert(str("code"), str(d.code));
            e.insert(str("message"), str(d.summary()));  // detail lines are in "details", as OPA's
            if (!d.file.empty() || d.line)
                e.insert(str("location"), Value::object({{str("file"), str(d.file)},
                                                          {str("row"), Value::integer(d.line)},
                                                          {str("col"), Value::integer(d.col)}}));
            if (d.details) e.insert(str("details"), detail_value(*d.details));
            list.push_back(e.build());
        }
        b.insert(str("errors"), list.build());
    }
    return HttpResponse::json(status, runtime::to_json(b.build()));
}

HttpResponse write_result(const WriteResult& r, int success_status, std::string success_body = {}) {
    if (r.ok()) {
        HttpResponse resp = HttpResponse::json(success_status, std::move(success_body));
        return resp;
    }
    if (r.status == 304) return HttpResponse::json(304, "");
    return error_response(r.status, r.code, r.message, &r.errors);
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool percent_decode(std::string_view in, std::string& out, bool plus_is_space) {
    out.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '%') {
            if (i + 2 >= in.size()) return false;
            int hi = hex_value(in[i + 1]);
            int lo = hex_value(in[i + 2]);
            if (hi < 0 || lo < 0) return false;
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else if (c == '+' && plus_is_space) {
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    return true;
}

bool has_query_flag(std::string_view query, std::string_view key) {
    while (!query.empty()) {
        auto amp = query.find('&');
        std::string_view part = query.substr(0, amp);
        if (part.substr(0, part.find('=')) == key) return true;
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return false;
}

// An HTTP body that is JSON or empty (undefined).
bool parse_optional_json(const std::string& body, Value& out, bool& present, std::string& error) {
    present = body.find_first_not_of(" \t\r\n") != std::string::npos;
    if (!present) return true;
    auto parsed = parse_json_document(body);
    if (!parsed.ok) {
        error = "malformed JSON: " + parsed.error.message;
        return false;
    }
    out = std::move(parsed.value);
    return true;
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
        if (!percent_decode(path.substr(0, slash), seg, false)) return false;
        out.push_back(std::move(seg));
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash);
    }
    return true;
}

std::string percent_decode_query_value(std::string_view query, std::string_view key, bool& found) {
    found = false;
    while (!query.empty()) {
        auto amp = query.find('&');
        std::string_view part = query.substr(0, amp);
        auto eq = part.find('=');
        if (part.substr(0, eq) == key) {
            std::string out;
            found = percent_decode(eq == std::string_view::npos ? std::string_view{} : part.substr(eq + 1), out, true);
            return out;
        }
        if (amp == std::string_view::npos) break;
        query.remove_prefix(amp + 1);
    }
    return {};
}

struct Service::Route {
    enum class Kind { Answer, Admission, Data, Policies, Query, Health, Metrics } kind = Kind::Answer;
    std::string endpoint = "other";  // the metrics label
    std::string method;              // the request's, for the metrics
    HttpResponse answer;             // Kind::Answer: the whole response (404, 401 ...)
    std::string mode;                // admission: "main", "validate" or "mutate"
    std::vector<std::string> path;   // admission: the package; data: the document path
    std::string policy_id;
    bool readiness = false;          // health: the readiness check
};

Service::Service(ServiceOptions options, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics)
    : options_(std::move(options)), store_(std::move(store)), metrics_(std::move(metrics)) {}

void Service::set_pools(std::shared_ptr<WorkerPool> eval, std::shared_ptr<WorkerPool> rest) {
    eval_pool_ = std::move(eval);
    rest_pool_ = std::move(rest);
}

Service::Route Service::route(Listener listener, const HttpRequest& req) const {
    using Kind = Route::Kind;
    Route r;
    r.method = req.method;
    auto answer = [&r](HttpResponse resp) {
        r.kind = Kind::Answer;
        r.answer = std::move(resp);
        return std::move(r);
    };
    std::vector<std::string> segments;
    std::string_view path = req.path();
    if (!split_path(path, segments)) return answer(error_response(400, "invalid_parameter", "invalid percent-encoding in the path"));
    // A document or package path (after /v1/data/ or /validate/) nests at most kMaxPathSegments deep.
    auto too_deep = [&answer](std::size_t n) {
        return answer(error_response(400, "invalid_parameter",
                                     "path too deep: " + std::to_string(n) + " segments (the limit is " +
                                         std::to_string(kMaxPathSegments) + ")"));
    };
    std::string_view first = segments.empty() ? std::string_view{} : std::string_view(segments[0]);
    bool rest_path = first == "v1" && segments.size() >= 2 &&
                     (segments[1] == "data" || segments[1] == "policies" || segments[1] == "query");
    bool diagnostic_path = first == "health" || first == "metrics";
    bool admission_path = segments.empty() || first == "validate" || first == "mutate" || first == "gatekeeper";

    switch (listener) {
    case Listener::Admission:
        if (!admission_path) break;
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
        if (segments.size() - 1 > kMaxPathSegments) return too_deep(segments.size() - 1);
        r.kind = Kind::Admission;
        r.mode = segments[0];
        r.path.assign(segments.begin() + 1, segments.end());
        return r;
    case Listener::Rest: {
        if (!rest_path) break;
        r.endpoint = "/v1/" + segments[1];
        if (!options_.token.empty()) {
            std::string_view auth = req.header("Authorization");
            std::string expected = "Bearer " + options_.token;
            if (auth.size() != expected.size() || CRYPTO_memcmp(auth.data(), expected.data(), auth.size()) != 0)
                return answer(error_response(401, "unauthorized", "the request requires a valid bearer token"));
        }
        if (segments[1] == "data") {
            if (segments.size() - 2 > kMaxPathSegments) return too_deep(segments.size() - 2);
            r.kind = Kind::Data;
            r.path.assign(segments.begin() + 2, segments.end());
        } else if (segments[1] == "policies") {
            // Policy ids may contain slashes (kube-mgmt uses namespace/name/key): the rest of the path.
            auto prefix = std::string_view("/v1/policies/");
            if (path.size() > prefix.size()) percent_decode(path.substr(prefix.size()), r.policy_id, false);
            r.kind = Kind::Policies;
        } else if (segments.size() == 2) {
            r.kind = Kind::Query;
        } else {
            return answer(error_response(404, "resource_not_found", "not found"));
        }
        return r;
    }
    case Listener::Diagnostic:
        if (!diagnostic_path) break;
        if (first == "metrics") {
            r.endpoint = "/metrics";
            if (segments.size() != 1) return answer(error_response(404, "resource_not_found", "not found"));
            r.kind = Kind::Metrics;
            return r;
        }
        r.endpoint = "/health";
        if (segments.size() > 2 || (segments.size() == 2 && segments[1] != "ready" && segments[1] != "live"))
            return answer(error_response(404, "resource_not_found", "not found"));
        r.kind = Kind::Health;
        r.readiness = (segments.size() == 2 && segments[1] == "ready") || has_query_flag(req.query(), "bundles") ||
                      has_query_flag(req.query(), "plugins");
        return r;
    }
    // Name the listener that does serve it: a client (or a probe) on the wrong port learns where to go.
    std::string where;
    if (rest_path) where = " (the REST API is served on --rest-addr)";
    else if (diagnostic_path) where = " (health and metrics are served on --diagnostic-addr)";
    else if (admission_path) where = " (admission reviews are served on --addr)";
    return answer(error_response(404, "resource_not_found", "not found: " + std::string(path) + where));
}

void Service::handle(Listener listener, HttpRequest req, Respond respond) {
    auto start = Clock::now();
    metrics_->request_started();
    Route r = route(listener, req);
    WorkerPool* pool = nullptr;
    if (r.kind == Route::Kind::Admission) pool = eval_pool_.get();
    else if (r.kind == Route::Kind::Data || r.kind == Route::Kind::Policies || r.kind == Route::Kind::Query)
        pool = rest_pool_.get();
    if (!pool) {
        std::string decision;
        HttpResponse resp = execute(r, req, nullptr, decision);
        finish(r, decision, start, resp, req.body.size());
        return respond(std::move(resp));
    }
    struct Pending {
        Route route;
        HttpRequest req;
        Respond respond;
    };
    auto pending = std::make_shared<Pending>(Pending{std::move(r), std::move(req), std::move(respond)});
    WorkerPool::Task task = [self = shared_from_this(), pending, start](const std::atomic<bool>& cancel) {
        std::string decision;
        HttpResponse resp = self->execute(pending->route, pending->req, &cancel, decision);
        std::size_t bytes = pending->req.body.size();
        pending->req = HttpRequest{};  // the body goes before the answer leaves
        self->finish(pending->route, decision, start, resp, bytes);
        pending->respond(std::move(resp));
    };
    if (pool->try_submit(task)) return;
    std::string decision;
    HttpResponse resp = overloaded(pending->route, pending->req, *pool, decision);
    finish(pending->route, decision, start, resp, pending->req.body.size());
    pending->respond(std::move(resp));
}

HttpResponse Service::handle_now(Listener listener, HttpRequest& req) {
    auto start = Clock::now();
    metrics_->request_started();
    Route r = route(listener, req);
    std::string decision;
    HttpResponse resp = execute(r, req, nullptr, decision);
    finish(r, decision, start, resp, req.body.size());
    return resp;
}

HttpResponse Service::execute(const Route& r, HttpRequest& req, const std::atomic<bool>* cancel, std::string& decision) {
    using Kind = Route::Kind;
    switch (r.kind) {
    case Kind::Answer: return r.answer;
    case Kind::Admission: return admission(req, r, cancel, decision);
    case Kind::Data: return data_api(req, r.path, cancel);
    case Kind::Policies: return policies_api(req, r.policy_id);
    case Kind::Query: return query_api(req, cancel);
    case Kind::Health: return health(r.readiness);
    case Kind::Metrics: {
        HttpResponse resp;
        resp.status = 200;
        resp.content_type = "text/plain; version=0.0.4";
        resp.body = metrics_->render(ready(), store_->current()->config_hash);
        if (eval_pool_) resp.body += eval_pool_->render_metrics();
        if (options_.gatekeeper) resp.body += options_.gatekeeper->render_metrics();
        if (rest_pool_) resp.body += rest_pool_->render_metrics();
        return resp;
    }
    }
    return error_response(500, "internal_error", "unroutable request");
}

HttpResponse Service::overloaded(const Route& r, HttpRequest& req, const WorkerPool& pool, std::string& decision) {
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
    decision = "error";
    AdmissionDecision d = error_decision(review, message, options_.fail_open);
    return HttpResponse::json(200, runtime::to_json(d.review));
}

void Service::finish(const Route& r, const std::string& decision, Clock::time_point start, const HttpResponse& resp,
                     std::size_t request_bytes) {
    metrics_->request_finished();
    metrics_->record_request(r.endpoint, decision, resp.status, Clock::now() - start, r.method);
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

HttpResponse Service::health(bool readiness) {
    if (readiness && !ready()) return HttpResponse::json(503, R"({"error":"not ready"})");
    return HttpResponse::json(200, "{}");
}

namespace {
// A decision's id: a UUID (unique across replicas and restarts, as OPA's),
// made only when something asks for it (a print() line, the decision log).
class DecisionId {
public:
    const std::string& get() {
        if (id_.empty()) id_ = plugins::random_uuid();
        return id_;
    }

private:
    std::string id_;
};

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
    if (gatekeeper) {
        decision_name = "gatekeeper";
    } else if (!main) {
        auto snap = store_->current();
        auto it = snap->conventional_rules.find(decision_name);
        known_package = it != snap->conventional_rules.end();
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

HttpResponse Service::data_api(HttpRequest& req, const std::vector<std::string>& path, const std::atomic<bool>* cancel) {
    if (req.method == "GET" || req.method == "POST") {
        Value input;
        bool has_input = false;
        if (req.method == "POST") {
            Value body;
            bool present = false;
            std::string error;
            if (!parse_optional_json(req.body, body, present, error)) return error_response(400, "invalid_parameter", error);
            if (present) {
                if (!body.is_object()) return error_response(400, "invalid_parameter", "the body must be an object {\"input\": ...}");
                if (const Value* in = body.find("input")) {
                    input = *in;
                    has_input = true;
                }
            }
        }
        auto q = store_->query(engine::data_path_text(path));
        if (!q.query) {
            std::string message = q.errors.empty() ? "cannot prepare the query" : q.errors.items().front().headline();
            return error_response(400, "invalid_parameter", message, &q.errors);
        }
        EvalOptions eo;
        if (has_input) eo.input = &input;
        if (!eval_time_left(req, eo.timeout))
            return error_response(500, "internal_error", "evaluation timed out (waited " + waited_text(req) + " for a worker)");
        eo.cancel = cancel;
        eo.max_memory = options_.eval_memory_limit;
        DecisionId decision_id;
        eo.print = print_to_log(decision_id);
        EvalResult result = q.query->eval(eo);
        if (decision_logger_) {
            plugins::DecisionEvent event;
            event.decision_id = decision_id.get();
            for (const auto& p : path) event.path += (event.path.empty() ? "" : "/") + p;
            if (has_input) event.input = input;
            if (!result.error && !result.rows.empty() && !result.rows[0].expressions.empty())
                event.result = result.rows[0].expressions[0].value;
            if (result.error) event.error = eval_error_text(*result.error);
            event.requested_by = req.remote_addr;
            event.metrics = result.metrics;
            event.bundles = q.snapshot->bundle_revisions;
            decision_logger_->log(std::move(event));
        }
        if (result.error) return error_response(500, "internal_error", eval_error_text(*result.error));
        if (result.rows.empty() || result.rows[0].expressions.empty()) return HttpResponse::json(200, "{}");
        bool pretty = has_query_flag(req.query(), "pretty");
        std::string body = "{\"result\":";
        if (pretty) body = "{\n  \"result\": ";
        runtime::append_json(body, result.rows[0].expressions[0].value,
                             pretty ? runtime::JsonStyle::Pretty : runtime::JsonStyle::Compact);
        body += pretty ? "\n}\n" : "}";
        return HttpResponse::json(200, std::move(body));
    }
    if (req.method == "PUT") {
        auto parsed = parse_json_document(req.body);
        if (!parsed.ok) return error_response(400, "invalid_parameter", "malformed JSON: " + parsed.error.message);
        bool only_if_absent = req.header("If-None-Match") == "*";
        auto result = store_->put_data(path, parsed.value, only_if_absent);
        if (result.ok()) sync_gatekeeper_inventory();
        return write_result(result, 204);
    }
    if (req.method == "PATCH") {
        auto parsed = parse_json_document(req.body);
        if (!parsed.ok) return error_response(400, "invalid_parameter", "malformed JSON: " + parsed.error.message);
        auto result = store_->patch_data(path, parsed.value);
        if (result.ok()) sync_gatekeeper_inventory();
        return write_result(result, 204);
    }
    if (req.method == "DELETE") {
        auto result = store_->delete_data(path);
        if (result.ok()) sync_gatekeeper_inventory();
        return write_result(result, 204);
    }
    return error_response(405, "invalid_parameter", "method not allowed");
}

HttpResponse Service::policies_api(HttpRequest& req, const std::string& id) {
    if (req.method == "GET") {
        auto snap = store_->current();
        auto entry = [](const std::string& name, const std::string& raw) {
            return Value::object({{str("id"), str(name)}, {str("raw"), str(raw)}});
        };
        if (id.empty()) {
            runtime::ArrayBuilder list;
            for (const auto& [name, raw] : snap->policies) list.push_back(entry(name, raw));
            return HttpResponse::json(200, runtime::to_json(Value::object({{str("result"), list.build()}})));
        }
        auto it = snap->policies.find(id);
        if (it == snap->policies.end())
            return error_response(404, "resource_not_found", "storage_not_found_error: policy id \"" + id + "\"");
        return HttpResponse::json(200, runtime::to_json(Value::object({{str("result"), entry(it->first, it->second)}})));
    }
    if (id.empty()) return error_response(405, "invalid_parameter", "method not allowed");
    if (req.method == "PUT") return write_result(store_->put_policy(id, req.body), 200, "{}");
    if (req.method == "DELETE") return write_result(store_->delete_policy(id), 200, "{}");
    return error_response(405, "invalid_parameter", "method not allowed");
}

HttpResponse Service::query_api(HttpRequest& req, const std::atomic<bool>* cancel) {
    std::string text;
    Value input;
    bool has_input = false;
    if (req.method == "GET") {
        bool found = false;
        text = percent_decode_query_value(req.query(), "q", found);
        if (!found) return error_response(400, "invalid_parameter", "missing parameter q");
    } else if (req.method == "POST") {
        Value body;
        bool present = false;
        std::string error;
        if (!parse_optional_json(req.body, body, present, error)) return error_response(400, "invalid_parameter", error);
        const Value* q = present ? body.find("query") : nullptr;
        if (!q || !q->is_string()) return error_response(400, "invalid_parameter", "the body needs a string field query");
        text = std::string(q->as_string());
        if (const Value* in = body.find("input")) {
            input = *in;
            has_input = true;
        }
    } else {
        return error_response(405, "invalid_parameter", "method not allowed");
    }
    // Ad-hoc queries are not cached: they would crowd out the admission queries.
    auto q = store_->query(text, false);
    if (!q.query) return error_response(400, "invalid_parameter", q.errors.empty() ? "invalid query" : q.errors.items().front().headline(), &q.errors);
    EvalOptions eo;
    if (has_input) eo.input = &input;
    if (!eval_time_left(req, eo.timeout))
        return error_response(500, "internal_error", "evaluation timed out (waited " + waited_text(req) + " for a worker)");
    eo.cancel = cancel;
    eo.max_memory = options_.eval_memory_limit;
    DecisionId decision_id;
    eo.print = print_to_log(decision_id);
    EvalResult result = q.query->eval(eo);
    if (result.error) return error_response(500, "internal_error", eval_error_text(*result.error));
    if (result.rows.empty()) return HttpResponse::json(200, "{}");
    runtime::ArrayBuilder rows;
    for (const auto& row : result.rows) {
        runtime::ObjectBuilder b;
        for (const auto& [name, value] : row.bindings) b.insert(str(name), value);
        rows.push_back(b.build());
    }
    return HttpResponse::json(200, runtime::to_json(Value::object({{str("result"), rows.build()}})));
}

}  // namespace gavel::webhook
