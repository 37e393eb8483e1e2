#include "webhook/plugins/service_client.hpp"

#include <strings.h>

#include "runtime/file_read.hpp"
#include "engine/http_client.hpp"

namespace gavel::webhook::plugins {

std::string ServiceResponse::header(std::string_view name) const {
    for (const auto& [k, v] : headers)
        if (k.size() == name.size() && strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
    return {};
}

namespace {

// Credentials are read at each request, on the plugin's threads: a FIFO is refused, never waited on.
bool read_credential(const std::string& path, std::string& out, std::string& error) {
    runtime::FileRead read = runtime::read_whole_file(path, runtime::kDefaultReadLimit, runtime::NonRegular::Refuse);
    if (!read.ok) {
        error = read.message;
        return false;
    }
    out = std::move(read.text);
    return true;
}

}  // namespace

ServiceResponse call_service(const ServiceConfig& service, const std::string& method, const std::string& resource,
                             std::vector<std::pair<std::string, std::string>> headers, std::string body,
                             std::chrono::milliseconds timeout) {
    ServiceResponse out;
    engine::http::Request req;
    req.method = method;
    std::string url = service.url;
    req.https = url.starts_with("https://");
    std::string rest = url.substr(req.https ? 8 : 7);
    auto slash = rest.find('/');
    std::string authority = rest.substr(0, slash);
    std::string prefix = slash == std::string::npos ? "" : rest.substr(slash);
    if (!authority.empty() && authority[0] == '[') {
        auto close = authority.find(']');
        req.host = authority.substr(1, close - 1);
        req.port = close + 1 < authority.size() && authority[close + 1] == ':' ? authority.substr(close + 2) : "";
    } else {
        auto colon = authority.rfind(':');
        req.host = authority.substr(0, colon);
        req.port = colon == std::string::npos ? "" : authority.substr(colon + 1);
    }
    if (req.port.empty()) req.port = req.https ? "443" : "80";
    std::string path = resource;
    while (path.starts_with("/")) path.erase(0, 1);
    req.target = prefix + "/" + path;
    req.timeout = timeout;
    for (const auto& h : service.headers) req.headers.push_back(h);
    std::string token = service.bearer_token;
    if (!service.bearer_token_path.empty()) {
        if (!read_credential(service.bearer_token_path, token, out.error)) return out;
        while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    }
    if (!token.empty()) req.headers.emplace_back("Authorization", service.bearer_scheme + " " + token);
    for (auto& h : headers) req.headers.push_back(std::move(h));
    req.body = std::move(body);
    req.tls.insecure_skip_verify = service.allow_insecure_tls;
    req.tls.ca_file = service.ca_cert_file;
    if (!service.client_cert_file.empty()) {
        if (!read_credential(service.client_cert_file, req.tls.client_cert_pem, out.error)) return out;
        if (!read_credential(service.client_key_file, req.tls.client_key_pem, out.error)) return out;
    }
    auto [response, failure] = engine::http::perform(req);
    if (failure) {
        out.error = failure->message;
        return out;
    }
    out.status = response->status;
    out.body = std::move(response->body);
    out.headers = std::move(response->headers);
    return out;
}

}  // namespace gavel::webhook::plugins
