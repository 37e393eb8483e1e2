// /v1/config, /v1/status, GET / and /metrics, as OPA's server answers them.

#include "webhook/opa_api/endpoints.hpp"
#include "runtime/go_json_writer.hpp"
#include "webhook/opa_api/responses.hpp"

namespace gavel::webhook::opa_api {

HttpResponse v1_config_get(Call& c) {
    std::string config = c.hooks.config_json ? c.hooks.config_json() : "{}";
    return json_ok("{\"result\":" + config + "}", c.pretty());
}

HttpResponse v1_status_get(Call& c) {
    std::optional<std::string> status = c.hooks.status_json ? c.hooks.status_json() : std::nullopt;
    if (!status) return error_response(500, "internal_error", "status plugin not enabled");
    return json_ok("{\"result\":" + *status + "}", c.pretty());
}

HttpResponse index_get(Call& c) {
    HttpResponse r;
    r.status = 200;
    r.content_type = "text/html; charset=utf-8";
    r.body = "<html>\n<head><title>gavel</title></head>\n<body>\n<pre>gavel " + c.settings.version +
             ": OPA's REST API (POST /v1/data/..., /v1/query, /v1/policies)</pre>\n</body>\n</html>\n";
    return r;
}

HttpResponse metrics_get(Call& c) {
    HttpResponse r;
    r.status = 200;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores";
    r.body = c.hooks.metrics_text ? c.hooks.metrics_text() : std::string();
    return r;
}

}  // namespace gavel::webhook::opa_api
