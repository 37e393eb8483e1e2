#pragma once
// The server hands handlers plain request/response structs, not Beast types,
// so that routing and admission logic can be unit-tested without sockets.

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gavel::webhook {

struct HttpRequest {
    std::string method;  // "GET", "POST" ...
    std::string target;  // path and query, as sent
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string client_subject;  // the verified client certificate's subject (mTLS), else empty
    std::string remote_addr;     // "ip:port" of the client (decision logs' requested_by)
    // When the whole request had been read: time spent waiting for a worker counts
    // against the evaluation deadline.
    std::chrono::steady_clock::time_point received = std::chrono::steady_clock::now();

    // The first header of that name (case-insensitive), or empty.
    std::string_view header(std::string_view name) const;
    std::string_view path() const;   // target without the query
    std::string_view query() const;  // after '?', or empty
};

struct HttpResponse {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;

    static HttpResponse json(int status, std::string body) {
        HttpResponse r;
        r.status = status;
        r.body = std::move(body);
        return r;
    }
};

}  // namespace gavel::webhook
