#pragma once
// What the server answers: admission decisions, OPA's REST API, health and metrics.
//
//   POST /                         AdmissionReview -> the decision (default data.system.main)
//   POST /validate/<pkg path>      AdmissionReview -> response from the package's conventional rules
//   POST /mutate/<pkg path>        same; patches come back as a base64 JSONPatch
//   GET|POST /v1/data/<path>       {"result": value} ({} when undefined); POST takes {"input": ...}
//   PUT /v1/data/<path>            replace the document (204; If-None-Match: * -> 304 when present)
//   PATCH /v1/data/<path>          JSON Patch below the path (204)
//   DELETE /v1/data/<path>         204, 404 when absent
//   GET /v1/policies[/<id>]        {"result": [{"id","raw"}]} / {"result": {"id","raw"}}
//   PUT /v1/policies/<id>          raw Rego body -> {} or 400 with the compile errors
//   DELETE /v1/policies/<id>       {} or 404
//   GET|POST /v1/query             ad-hoc query -> {"result": [bindings...]}
//   GET /health                    live; /health?bundles, /health?plugins and /health/ready: ready
//   GET /metrics                   Prometheus text
// With a token configured, /v1/* needs "Authorization: Bearer <token>" (401 otherwise).

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "webhook/http_message.hpp"
#include "webhook/metrics.hpp"
#include "webhook/policy_store.hpp"

namespace gavel::webhook {

struct ServiceOptions {
    std::string decision = "data.system.main";  // what POST / evaluates
    std::chrono::milliseconds eval_timeout{5000};
    bool fail_open = false;     // evaluation errors allow (with a warning) instead of deny
    bool input_http = false;    // add request headers and the client certificate subject as input.http
    bool decision_log = false;  // one JSON line per admission decision on stdout
    std::string token;          // non-empty: bearer token required for /v1/*
};

class Service {
public:
    Service(ServiceOptions options, std::shared_ptr<PolicyStore> store, std::shared_ptr<Metrics> metrics);

    HttpResponse handle(HttpRequest& req);

    void set_ready(bool ready) { ready_ = ready; }
    bool ready() const { return ready_; }

private:
    HttpResponse admission(HttpRequest& req, std::string_view mode, const std::vector<std::string>& package,
                           std::string& decision_label);
    HttpResponse data_api(HttpRequest& req, const std::vector<std::string>& path);
    HttpResponse policies_api(HttpRequest& req, const std::string& id);
    HttpResponse query_api(HttpRequest& req);
    HttpResponse health(HttpRequest& req, bool readiness);

    ServiceOptions options_;
    std::shared_ptr<PolicyStore> store_;
    std::shared_ptr<Metrics> metrics_;
    std::atomic<bool> ready_{false};
    std::atomic<std::uint64_t> decision_ids_{0};
};

// "/a/b%2Fc/" -> {"a", "b/c"}; false on a bad percent escape.
bool split_path(std::string_view path, std::vector<std::string>& out);
std::string percent_decode_query_value(std::string_view query, std::string_view key, bool& found);

}  // namespace gavel::webhook
