#pragma once
// The handlers of OPA's REST API, one family per file (data_endpoints.cpp,
// policy_endpoints.cpp, query_endpoints.cpp, health_endpoints.cpp,
// info_endpoints.cpp), called by OpaApi::handle once the route is known.
// Internal to webhook/opa_api.

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/value.hpp"
#include "webhook/http_message.hpp"
#include "webhook/opa_api/api.hpp"
#include "webhook/opa_api/url_query.hpp"

namespace gavel::webhook::opa_api {

// What one request's handler works with.
struct Call {
    const ApiSettings& settings;
    const ApiHooks& hooks;
    PolicyStore& store;
    HttpRequest& req;
    UrlQuery query;
    const std::atomic<bool>* cancel;
    std::string path_value;  // the escaped rest of the path after the route's prefix ("{path...}")
    // The body the authorizer already parsed (OPA reads it once and hands it on).
    std::optional<runtime::Value> authorized_body;
    bool authorized_body_read = false;
    // OPA's prepared-query cache, emulated for metrics: true on a hit.
    std::function<bool(const std::string& key)> cache_hit;
    std::chrono::nanoseconds timeout{0};  // the evaluation's time limit (0: none)

    bool pretty() const { return query.flag("pretty"); }
};

// Rego's text of a data reference from URL path segments, as OPA's
// stringPathToRef: empty segments skipped, each unescaped, integers become
// numbers (array positions); a segment with a '"' is an error.
bool data_ref_text(std::string_view escaped_path, std::string& ref, std::string& error);

// Whether Rego text holds anything but white space and comments (OPA: no statement is
// "empty module", an empty query).
bool has_statement(std::string_view text);

HttpResponse v1_data_get(Call& c);
HttpResponse v1_data_post(Call& c);
HttpResponse v1_data_put(Call& c);
HttpResponse v1_data_patch(Call& c);
HttpResponse v1_data_delete(Call& c);
HttpResponse v0_data_post(Call& c, bool default_decision);

HttpResponse v1_policies_list(Call& c);
HttpResponse v1_policies_get(Call& c);
HttpResponse v1_policies_put(Call& c);
HttpResponse v1_policies_delete(Call& c);

HttpResponse v1_query_get(Call& c);
HttpResponse v1_query_post(Call& c);
HttpResponse v1_compile_post(Call& c);
// Data filters (OPA's Compile API for data filtering): POST/GET /v1/compile/{path}.
HttpResponse v1_compile_filters(Call& c);

// `bundles`/`plugins`/`exclude-plugin` parameters, and OPA's answers.
HttpResponse health(Call& c, std::atomic<bool>& all_plugins_ok_once);
HttpResponse health_policy(Call& c, std::atomic<bool>& all_plugins_ok_once);

HttpResponse v1_config_get(Call& c);
HttpResponse v1_status_get(Call& c);
HttpResponse index_get(Call& c);
HttpResponse metrics_get(Call& c);

// system.authz (--authorization=basic): nullopt lets the request through, else the refusal.
std::optional<HttpResponse> authorize(Call& c);

}  // namespace gavel::webhook::opa_api
