// Which listener serves what: a request's path and method -> a Route (an answer at once,
// an admission review, or OPA's REST API); see the table in service.hpp.
#include <openssl/crypto.h>

#include "webhook/opa_api/responses.hpp"
#include "webhook/opa_api/url_query.hpp"
#include "webhook/path_limits.hpp"
#include "webhook/service_route.hpp"

namespace gavel::webhook {

using opa_api::error_response;

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
        if (listener == Listener::Admission)
            return answer(error_response(400, "invalid_parameter", "invalid percent-encoding in the path"));
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
                                     "path too deep: " + std::to_string(segments.size() - below) +
                                         " segments (the limit is " + std::to_string(kMaxPathSegments) + ")"));
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
        if (req.method != "POST")
            return answer(error_response(405, "invalid_parameter", "POST an AdmissionReview to /"));
        r.kind = Kind::Admission;
        r.mode = "main";
        return r;
    }
    r.endpoint = "/" + segments[0];
    if (req.method != "POST") return answer(error_response(405, "invalid_parameter", "POST an AdmissionReview"));
    if (first == "gatekeeper") {
        if (segments.size() != 1 || !options_.gatekeeper)
            return answer(
                error_response(404, "resource_not_found", "no Gatekeeper constraints here (serve --gatekeeper DIR)"));
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

}  // namespace gavel::webhook
