// The Kubernetes admission handler: an AdmissionReview posted to /, /validate/<package>,
// /mutate/<package> or /gatekeeper -> the AdmissionReview answer (webhook/admission.hpp binds
// the review; the decision log and print() lines carry the decision's id).
#include <algorithm>
#include <cctype>

#include "engine/loader.hpp"
#include "runtime/json.hpp"
#include "webhook/admission.hpp"
#include "webhook/eval_limits.hpp"
#include "webhook/log.hpp"
#include "webhook/opa_api/responses.hpp"
#include "support/random_uuid.hpp"
#include "webhook/service_route.hpp"
#include "webhook/value_text.hpp"

namespace gavel::webhook {

using opa_api::error_response;
using runtime::Value;

namespace {

std::string eval_error_text(const EvalError& e) {
    // A cancelled evaluation ran out of time, unless its message says it ran out of memory.
    if (e.code == "eval_cancel_error")
        return e.message.starts_with("evaluation exceeded its memory limit")
                   ? e.message
                   : "evaluation timed out (" + e.message + ")";
    return e.to_string();
}

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
    return [&id](std::string_view text) {
        log_line("info", text, {{"decision_id", runtime::Value::string(id.get())}});
    };
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
        b.insert(str("http"),
                 Value::object({{str("headers"), headers.build()}, {str("client_subject"), str(req.client_subject)}}));
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
    // The limits every evaluation of this review runs under, set up once for both kinds.
    EvalLimits limits;
    limits.cancel = cancel;
    limits.max_memory = options_.eval_memory_limit;
    limits.print = print_to_log(decision_id);
    bool time_left = eval_time_left(req, limits.timeout);
    std::string no_time_left = "evaluation timed out (waited " + waited_text(req) + " for a worker)";
    if (gatekeeper) {
        GatekeeperDecisionOptions go;
        go.fail_open = options_.fail_open;
        go.control = limits.gatekeeper_control();
        d = time_left ? gatekeeper_decision(review, *options_.gatekeeper, go)
                      : error_decision(review, no_time_left, options_.fail_open);
    } else if (!known_package) {
        d = error_decision(review, "no policy defines package " + decision_name, options_.fail_open);
    } else if (mode == "validate" && !validates(*package_rules)) {
        d = error_decision(review, no_validating_rule_text(*snap, decision_name), options_.fail_open);
    } else if (!q.query) {
        std::string message = "cannot prepare " + decision_name;
        if (!q.errors.empty()) message += ": " + q.errors.items().front().headline();
        d = error_decision(review, message, options_.fail_open);
    } else if (!time_left) {
        d = error_decision(review, no_time_left, options_.fail_open);
    } else {
        EvalResult result = q.query->eval(limits.eval_options(&input));
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
