#pragma once
// One HTTP(S) call to a configured service (config.hpp): the service's URL
// prefix, bearer token, headers and TLS settings applied, as OPA's rest client.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "webhook/plugins/config.hpp"

namespace gavel::webhook::plugins {

struct ServiceResponse {
    unsigned status = 0;  // 0: no HTTP answer (see error)
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string error;
    std::string header(std::string_view name) const;
};

ServiceResponse call_service(const ServiceConfig& service, const std::string& method, const std::string& resource,
                             std::vector<std::pair<std::string, std::string>> headers, std::string body,
                             std::chrono::milliseconds timeout);

}  // namespace gavel::webhook::plugins
