#pragma once
// Where a listener listens, as OPA's --addr spells it: "[scheme://]host:port"
// (":8181", "0.0.0.0:8443", "localhost:8181", "[::1]:8181", "http://127.0.0.1:8181",
// "https://:8443") or "unix:///path/to/socket". Without a scheme a listener is
// HTTPS when the server has a certificate, plain HTTP otherwise, as in OPA.

#include <cstdint>
#include <string>
#include <string_view>

namespace gavel::webhook {

struct ListenAddress {
    enum class Scheme { Http, Https, Unix };
    Scheme scheme = Scheme::Http;
    std::string host = "0.0.0.0";  // an IP address ("localhost" becomes 127.0.0.1; an empty host, every address)
    uint16_t port = 0;             // 0: any free port
    std::string unix_path;         // Scheme::Unix
    std::string text;              // as given, for logs

    bool tls() const { return scheme == Scheme::Https; }
    bool loopback() const;
};

// False with `error` naming the problem. Host names other than localhost are
// not resolved (the static binary has no resolver configuration to trust).
bool parse_listen_address(std::string_view text, bool https_by_default, ListenAddress& out, std::string& error);

}  // namespace gavel::webhook
