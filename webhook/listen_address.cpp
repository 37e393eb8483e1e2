#include "webhook/listen_address.hpp"

#include <charconv>

namespace gavel::webhook {

bool ListenAddress::loopback() const {
    if (scheme == Scheme::Unix) return true;  // reachable only through the file system
    return host.rfind("127.", 0) == 0 || host == "::1";
}

bool parse_listen_address(std::string_view text, bool https_by_default, ListenAddress& out, std::string& error) {
    out = ListenAddress{};
    out.text = std::string(text);
    std::string_view rest = text;
    out.scheme = https_by_default ? ListenAddress::Scheme::Https : ListenAddress::Scheme::Http;
    if (auto sep = rest.find("://"); sep != std::string_view::npos) {
        std::string_view scheme = rest.substr(0, sep);
        rest.remove_prefix(sep + 3);
        if (scheme == "http") out.scheme = ListenAddress::Scheme::Http;
        else if (scheme == "https") out.scheme = ListenAddress::Scheme::Https;
        else if (scheme == "unix") out.scheme = ListenAddress::Scheme::Unix;
        else {
            error = "invalid url scheme \"" + std::string(scheme) + "\" in " + out.text;
            return false;
        }
    }
    if (out.scheme == ListenAddress::Scheme::Unix) {
        if (rest.empty()) {
            error = "no socket path in " + out.text;
            return false;
        }
        out.unix_path = std::string(rest);
        out.host.clear();
        return true;
    }
    // A URL's path (OPA ignores it): "http://127.0.0.1:8181/" listens on the host.
    if (auto slash = rest.find('/'); slash != std::string_view::npos) rest = rest.substr(0, slash);
    auto colon = rest.rfind(':');
    if (colon == std::string_view::npos) {
        error = "missing port in address " + out.text + " (want host:port or :port)";
        return false;
    }
    std::string host(rest.substr(0, colon));
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    if (host.empty()) host = "0.0.0.0";
    if (host == "localhost") host = "127.0.0.1";
    if (host.find_first_not_of("0123456789abcdefABCDEF.:") != std::string::npos) {
        error =
            "cannot listen on " + out.text + ": give an IP address (host names other than localhost are not resolved)";
        return false;
    }
    std::string_view digits = rest.substr(colon + 1);
    unsigned port = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || port > 65535) {
        error = "invalid port in address " + out.text;
        return false;
    }
    out.host = std::move(host);
    out.port = static_cast<uint16_t>(port);
    return true;
}

}  // namespace gavel::webhook
