#pragma once
// Inside Service (webhook/service.hpp): what routing decides for a request (service_routing.cpp)
// and what answering it tells the metrics, shared by service.cpp, service_routing.cpp and the
// admission handler (admission_handler.cpp).

#include <chrono>
#include <string>
#include <vector>

#include "webhook/service.hpp"

namespace gavel::webhook {

struct Service::Route {
    enum class Kind { Answer, Admission, Api } kind = Kind::Answer;
    std::string endpoint = "other";                  // the metrics label
    std::string method;                              // the request's, for the metrics
    HttpResponse answer;                             // Kind::Answer: the whole response (404, 401 ...)
    std::string mode;                                // admission: "main", "validate" or "mutate"
    std::vector<std::string> path;                   // admission: the package
    opa_api::Router router = opa_api::Router::Main;  // Kind::Api
    std::string opa_handler;  // Kind::Api: OPA's handler label of the route ("" for none, or /metrics)
    opa_api::OpaApi::Work work = opa_api::OpaApi::Work::Immediate;
    Listener listener = Listener::Admission;
};

struct Service::Outcome {
    std::string decision;                   // admission: "allowed", "denied", "error"
    bool api_handled = false;               // the OPA API answered (not a refusal before it)
    std::vector<std::string> instrumented;  // then: the handlers OPA's instrumentation records
};

// "12 ms": how long a request has waited since it arrived (for "waited ... for a worker").
std::string waited_text(const HttpRequest& req);

}  // namespace gavel::webhook
