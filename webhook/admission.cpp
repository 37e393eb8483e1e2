#include "webhook/admission.hpp"

#include <algorithm>

#include "runtime/json.hpp"
#include "support/base64.hpp"
#include "engine/loader.hpp"
#include "webhook/json_patch.hpp"
#include "webhook/large_json.hpp"
#include "webhook/value_text.hpp"

namespace gavel::webhook {

using runtime::Value;

namespace {

constexpr std::string_view kV1 = "admission.k8s.io/v1";
constexpr std::string_view kV1beta1 = "admission.k8s.io/v1beta1";

Value review_envelope(const ReviewRequest& req, Value response) {
    return Value::object({{str("apiVersion"), str(req.api_version)},
                          {str("kind"), str("AdmissionReview")},
                          {str("response"), std::move(response)}});
}

// A rule element as text: strings as they are, objects by their msg, else JSON.
std::string message_of(const Value& v) {
    if (v.is_string()) return std::string(v.as_string());
    if (const Value* msg = v.find("msg"); msg && msg->is_string()) return std::string(msg->as_string());
    return runtime::to_json(v);
}

std::string_view reason_for(int code) {
    switch (code) {
        case 400: return "BadRequest";
        case 401: return "Unauthorized";
        case 403: return "Forbidden";
        case 404: return "NotFound";
        case 409: return "Conflict";
        case 422: return "Invalid";
        case 429: return "TooManyRequests";
        case 500: return "InternalError";
        default: return "Forbidden";
    }
}

// The elements of an array or a set (rules may produce either).
std::span<const Value> elements(const Value& v) { return v.is_set() ? v.set_elements() : v.array_elements(); }

Value status(int code, const std::string& message, std::string_view reason) {
    return Value::object(
        {{str("code"), Value::integer(code)}, {str("message"), str(message)}, {str("reason"), str(reason)}});
}

// One patch op with its path as a pointer string; false with `error` when malformed.
bool normalise_op(const Value& op, Value& out, std::string& error) {
    static const std::vector<std::string_view> kOps = {"add", "remove", "replace", "move", "copy", "test"};
    const Value* name = op.find("op");
    const Value* path = op.find("path");
    if (!op.is_object() || !name || !name->is_string() || !path) {
        error = "patch operation " + runtime::to_json(op) + " needs op and path";
        return false;
    }
    if (std::find(kOps.begin(), kOps.end(), name->as_string()) == kOps.end()) {
        error = "patch operation " + runtime::to_json(op) + " has an unknown op";
        return false;
    }
    auto pointer_of = [&](const Value& p, Value& text) {
        if (p.is_string()) {
            if (!parse_json_pointer(p.as_string()) || p.as_string() == "/") return false;
            text = p;
            return true;
        }
        if (!p.is_array()) return false;
        std::vector<std::string> segs;
        for (const Value& s : p.array_elements()) {
            if (s.is_string()) segs.emplace_back(s.as_string());
            else if (s.is_number()) segs.push_back(runtime::to_json(s));
            else return false;
        }
        text = str(json_pointer(segs));
        return true;
    };
    runtime::ObjectBuilder b;
    for (const auto& e : op.object_entries()) {
        if (e.key == str("path") || e.key == str("from")) {
            Value text;
            if (!pointer_of(e.value, text)) {
                error = "patch operation " + runtime::to_json(op) + " has an invalid " + std::string(e.key.as_string());
                return false;
            }
            b.insert(e.key, text);
        } else {
            b.insert(e.key, e.value);
        }
    }
    out = b.build();
    return true;
}

}  // namespace

bool parse_review(std::string_view body, ReviewRequest& out, std::string& error) {
    auto parsed = parse_json_document(body);
    if (!parsed.ok) {
        error = "malformed JSON: " + parsed.error.message;
        return false;
    }
    const Value& review = parsed.value;
    if (!review.is_object()) {
        error = "the body must be an AdmissionReview object";
        return false;
    }
    const Value* kind = review.find("kind");
    if (!kind || !kind->is_string() || kind->as_string() != "AdmissionReview") {
        error = "kind must be AdmissionReview";
        return false;
    }
    const Value* api = review.find("apiVersion");
    if (!api || !api->is_string() || (api->as_string() != kV1 && api->as_string() != kV1beta1)) {
        error = "apiVersion must be admission.k8s.io/v1 or admission.k8s.io/v1beta1";
        return false;
    }
    const Value* request = review.find("request");
    if (!request || !request->is_object()) {
        error = "the AdmissionReview has no request";
        return false;
    }
    const Value* uid = request->find("uid");
    if (!uid || !uid->is_string() || uid->size() == 0) {
        error = "request.uid is missing";
        return false;
    }
    out.api_version = std::string(api->as_string());
    out.uid = *uid;
    out.review = review;
    return true;
}

const std::vector<std::string>& conventional_rule_names() {
    static const std::vector<std::string> names = {"audit_annotations", "deny", "patch", "violation", "warn"};
    return names;
}

namespace {
bool defines_any(const std::vector<ConventionalRule>& rules, std::initializer_list<std::string_view> names) {
    return std::any_of(rules.begin(), rules.end(), [&](const ConventionalRule& r) {
        return std::find(names.begin(), names.end(), r.name) != names.end();
    });
}
}  // namespace

bool validates(const std::vector<ConventionalRule>& rules) { return defines_any(rules, {"deny", "violation", "warn"}); }

bool can_deny(const std::vector<ConventionalRule>& rules) { return defines_any(rules, {"deny", "violation"}); }

std::string conventional_rules_query(const std::vector<std::string>& package,
                                     const std::vector<ConventionalRule>& rules) {
    return conventional_rules_query(engine::data_path_text(package), rules);
}

std::string conventional_rules_query(const std::string& p, const std::vector<ConventionalRule>& rules) {
    std::string q = "{";
    for (const auto& r : rules) {
        if (q.size() > 1) q += ", ";
        std::string ref = p + "." + r.name;
        q += "\"" + r.name + "\": ";
        if (r.multi_value) q += ref;
        else if (r.name == "audit_annotations") q += "{k: v | v := " + ref + "[k]}";
        else q += "[x | x := " + ref + "[_]]";
    }
    return q + "}";
}

AdmissionDecision decision_from_rules(const ReviewRequest& req, const Value& rules, bool fail_open) {
    AdmissionDecision d;
    std::vector<std::string> messages;
    int code = 0;
    std::string reason;
    for (const char* rule : {"deny", "violation"}) {
        const Value* list = rules.find(rule);
        if (!list) continue;
        for (const Value& v : elements(*list)) {
            messages.push_back(message_of(v));
            std::int64_t c = 0;
            if (const Value* cv = v.find("code"); cv && cv->as_int64(c) && c >= 400 && c <= 599 && !code)
                code = static_cast<int>(c);
            if (const Value* rv = v.find("reason"); rv && rv->is_string() && reason.empty())
                reason = std::string(rv->as_string());
        }
    }
    runtime::ObjectBuilder response;
    response.insert(str("uid"), req.uid);
    if (const Value* warn = rules.find("warn"); warn && warn->size() > 0) {
        runtime::ArrayBuilder w;
        for (const Value& v : elements(*warn)) w.push_back(str(message_of(v)));
        response.insert(str("warnings"), w.build());
    }
    if (const Value* aa = rules.find("audit_annotations"); aa && aa->size() > 0) {
        runtime::ObjectBuilder a;
        for (const auto& e : aa->object_entries())
            a.insert(e.key.is_string() ? e.key : str(runtime::to_json(e.key)),
                     e.value.is_string() ? e.value : str(runtime::to_json(e.value)));
        response.insert(str("auditAnnotations"), a.build());
    }
    if (!messages.empty()) {
        d.outcome = AdmissionDecision::Outcome::Denied;
        d.code = code ? code : 403;
        d.message = join(messages, ", ");
        response.insert(str("allowed"), Value::boolean(false));
        response.insert(str("status"), status(d.code, d.message, reason.empty() ? reason_for(d.code) : reason));
    } else {
        response.insert(str("allowed"), Value::boolean(true));
        if (const Value* patch = rules.find("patch"); patch && patch->size() > 0) {
            runtime::ArrayBuilder ops;
            for (const Value& op : elements(*patch)) {
                Value normal;
                std::string error;
                if (!normalise_op(op, normal, error)) return error_decision(req, error, fail_open);
                ops.push_back(std::move(normal));
            }
            response.insert(str("patchType"), str("JSONPatch"));
            response.insert(str("patch"), str(support::base64_encode(runtime::to_json(ops.build()))));
        }
    }
    d.review = review_envelope(req, response.build());
    return d;
}

AdmissionDecision decision_from_main(const ReviewRequest& req, const Value& result, bool defined,
                                     const std::string& decision_name, bool fail_open) {
    if (!defined) return error_decision(req, decision_name + " is undefined", fail_open);
    const Value* response = result.find("response");
    if (!result.is_object() || !response || !response->is_object())
        return error_decision(req, decision_name + " must be an AdmissionReview with a response object", fail_open);
    const Value* allowed = response->find("allowed");
    if (!allowed || !allowed->is_bool())
        return error_decision(req, decision_name + ": response.allowed must be a boolean", fail_open);
    AdmissionDecision d;
    d.outcome = allowed->as_bool() ? AdmissionDecision::Outcome::Allowed : AdmissionDecision::Outcome::Denied;
    if (const Value* st = response->find("status")) {
        std::int64_t c = 0;
        if (const Value* cv = st->find("code"); cv && cv->as_int64(c)) d.code = static_cast<int>(c);
        if (const Value* m = st->find("message"); m && m->is_string()) d.message = std::string(m->as_string());
    }
    if (d.outcome == AdmissionDecision::Outcome::Denied && d.code == 200) d.code = 403;
    // The uid always matches the request, and the envelope the request's version.
    runtime::ObjectBuilder r;
    for (const auto& e : response->object_entries())
        if (e.key != str("uid")) r.insert(e.key, e.value);
    r.insert(str("uid"), req.uid);
    runtime::ObjectBuilder out;
    for (const auto& e : result.object_entries())
        if (e.key != str("response") && e.key != str("apiVersion") && e.key != str("kind")) out.insert(e.key, e.value);
    out.insert(str("apiVersion"), str(req.api_version));
    out.insert(str("kind"), str("AdmissionReview"));
    out.insert(str("response"), r.build());
    d.review = out.build();
    return d;
}

AdmissionDecision error_decision(const ReviewRequest& req, const std::string& message, bool fail_open) {
    AdmissionDecision d;
    d.outcome = AdmissionDecision::Outcome::Error;
    d.message = message;
    Value response;
    if (fail_open) {
        d.code = 200;
        response = Value::object(
            {{str("uid"), req.uid},
             {str("allowed"), Value::boolean(true)},
             {str("warnings"),
              Value::array({str("gavel: policy evaluation failed, allowed by --fail-open: " + message)})}});
    } else {
        d.code = 500;
        response =
            Value::object({{str("uid"), req.uid},
                           {str("allowed"), Value::boolean(false)},
                           {str("status"), status(500, "policy evaluation failed: " + message, "InternalError")}});
    }
    d.review = review_envelope(req, std::move(response));
    return d;
}

}  // namespace gavel::webhook
