#pragma once
// A small blocking HTTP/1.1 client on Boost.Beast for http.send: one request,
// plain TCP or TLS (OpenSSL), one deadline covering resolve, connect,
// handshake, write and read. No connection reuse; redirects are the caller's.

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gavel::stdlib::http {

struct TlsOptions {
    bool insecure_skip_verify = false;
    bool use_system_certs = true;  // the system CA store (when no CA is given)
    std::string ca_pem;            // extra trusted CAs (PEM text)
    std::string ca_file;           // its name (set: no system store unless asked for)
    std::string ca_file_pem;       // and its text, read by the caller (runtime/file_read.hpp)
    std::string client_cert_pem;   // client certificate chain (PEM text)
    std::string client_key_pem;
    std::string server_name;  // SNI and the name verified (default: the URL's host)
};

struct Request {
    std::string method = "GET";
    bool https = false;
    std::string host;    // name or address, no brackets
    std::string port;    // "80" / "443" when the URL has none
    std::string target;  // path and query: "/a?b=c"
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::chrono::nanoseconds timeout{std::chrono::seconds(5)};
    TlsOptions tls;
};

struct Response {
    unsigned status = 0;
    std::string reason;                                        // "OK"
    std::vector<std::pair<std::string, std::string>> headers;  // as received
    std::string body;
};

struct Failure {
    std::string message;  // what went wrong, in Go's words where OPA shows them
    bool timed_out = false;
};

// Performs the request; exactly one of the results is set.
std::pair<std::optional<Response>, std::optional<Failure>> perform(const Request& request);

}  // namespace gavel::stdlib::http
