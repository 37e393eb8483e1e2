// A port of the behaviour (not the code) of Go's net/url escaping and parsing.

#include "stdlib/go_url.hpp"

#include "lang/go_quote.hpp"
#include "support/hex_digit.hpp"

#include <fmt/format.h>

namespace gavel::stdlib::go_url {

namespace {

enum class Mode { Path, Host, Zone, UserPassword, QueryComponent, Fragment };

bool is_alnum(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// Go's shouldEscape: which bytes a component must percent-encode.
bool should_escape(unsigned char c, Mode mode) {
    if (is_alnum(c)) return false;
    if (mode == Mode::Host || mode == Mode::Zone) {
        switch (c) {
            case '!':
            case '$':
            case '&':
            case '\'':
            case '(':
            case ')':
            case '*':
            case '+':
            case ',':
            case ';':
            case '=':
            case ':':
            case '[':
            case ']':
            case '<':
            case '>':
            case '"': return false;
            default: break;
        }
    }
    switch (c) {
        case '-':
        case '_':
        case '.':
        case '~': return false;
        case '$':
        case '&':
        case '+':
        case ',':
        case '/':
        case ':':
        case ';':
        case '=':
        case '?':
        case '@':
            switch (mode) {
                case Mode::UserPassword: return c == '@' || c == '/' || c == '?' || c == ':';
                case Mode::Path: return c == '?';
                case Mode::QueryComponent: return true;
                case Mode::Fragment: return false;
                default: break;
            }
            break;
        default: break;
    }
    if (mode == Mode::Fragment && (c == '!' || c == '(' || c == ')' || c == '*')) return false;
    return true;
}

std::string escape(std::string_view s, Mode mode) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(s.size());
    for (unsigned char c : s) {
        if (c == ' ' && mode == Mode::QueryComponent) {
            out += '+';
        } else if (should_escape(c, mode)) {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else {
            out += static_cast<char>(c);
        }
    }
    return out;
}

std::optional<std::string> unescape(std::string_view s, Mode mode, std::string& error) {
    for (std::size_t i = 0; i < s.size();) {
        char c = s[i];
        if (c == '%') {
            if (i + 2 >= s.size() || support::hex_digit_value(s[i + 1]) < 0 || support::hex_digit_value(s[i + 2]) < 0) {
                error = "invalid URL escape " + lang::go_quote(s.substr(i, 3));
                return std::nullopt;
            }
            // In a host, %-escapes may only encode non-ASCII bytes (RFC 3986),
            // except %25 for IPv6 zone identifiers (RFC 6874).
            if (mode == Mode::Host && support::hex_digit_value(s[i + 1]) < 8 && s.substr(i, 3) != "%25") {
                error = "invalid URL escape " + lang::go_quote(s.substr(i, 3));
                return std::nullopt;
            }
            if (mode == Mode::Zone) {
                unsigned char v = static_cast<unsigned char>(support::hex_digit_value(s[i + 1]) * 16 +
                                                             support::hex_digit_value(s[i + 2]));
                if (s.substr(i, 3) != "%25" && v != ' ' && should_escape(v, Mode::Host)) {
                    error = "invalid URL escape " + lang::go_quote(s.substr(i, 3));
                    return std::nullopt;
                }
            }
            i += 3;
        } else {
            auto u = static_cast<unsigned char>(c);
            if ((mode == Mode::Host || mode == Mode::Zone) && u < 0x80 && should_escape(u, mode)) {
                error = "invalid character " + lang::go_quote(s.substr(i, 1)) + " in host name";
                return std::nullopt;
            }
            ++i;
        }
    }
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '%') {
            out += static_cast<char>(support::hex_digit_value(s[i + 1]) * 16 + support::hex_digit_value(s[i + 2]));
            i += 3;
        } else if (s[i] == '+' && mode == Mode::QueryComponent) {
            out += ' ';
            ++i;
        } else {
            out += s[i++];
        }
    }
    return out;
}

bool valid_optional_port(std::string_view port) {
    if (port.empty()) return true;
    if (port[0] != ':') return false;
    for (char c : port.substr(1))
        if (c < '0' || c > '9') return false;
    return true;
}

bool valid_userinfo(std::string_view s) {
    for (unsigned char c : s) {
        if (is_alnum(c)) continue;
        switch (c) {
            case '-':
            case '.':
            case '_':
            case ':':
            case '~':
            case '!':
            case '$':
            case '&':
            case '\'':
            case '(':
            case ')':
            case '*':
            case '+':
            case ',':
            case ';':
            case '=':
            case '%':
            case '@': continue;
            default: return false;
        }
    }
    return true;
}

std::optional<std::string> parse_host(std::string_view host, std::string& error) {
    if (!host.empty() && host[0] == '[') {
        auto close = host.rfind(']');
        if (close == std::string_view::npos) {
            error = "missing ']' in host";
            return std::nullopt;
        }
        auto colon_port = host.substr(close + 1);
        if (!valid_optional_port(colon_port)) {
            error = fmt::format("invalid port {} after host", lang::go_quote(colon_port));
            return std::nullopt;
        }
        auto zone = host.substr(0, close).find("%25");
        if (zone != std::string_view::npos) {
            auto a = unescape(host.substr(0, zone), Mode::Host, error);
            if (!a) return std::nullopt;
            auto b = unescape(host.substr(zone, close - zone), Mode::Zone, error);
            if (!b) return std::nullopt;
            auto c = unescape(host.substr(close), Mode::Host, error);
            if (!c) return std::nullopt;
            return *a + *b + *c;
        }
    } else if (auto colon = host.rfind(':'); colon != std::string_view::npos) {
        auto colon_port = host.substr(colon);
        if (!valid_optional_port(colon_port)) {
            error = fmt::format("invalid port {} after host", lang::go_quote(colon_port));
            return std::nullopt;
        }
    }
    return unescape(host, Mode::Host, error);
}

bool parse_authority(std::string_view authority, Url& url, std::string& error) {
    auto at = authority.rfind('@');
    auto host = parse_host(at == std::string_view::npos ? authority : authority.substr(at + 1), error);
    if (!host) return false;
    url.host = std::move(*host);
    if (at == std::string_view::npos) return true;
    auto userinfo = authority.substr(0, at);
    if (!valid_userinfo(userinfo)) {
        error = "net/url: invalid userinfo";
        return false;
    }
    auto colon = userinfo.find(':');
    if (!unescape(userinfo.substr(0, colon), Mode::UserPassword, error)) return false;
    if (colon != std::string_view::npos && !unescape(userinfo.substr(colon + 1), Mode::UserPassword, error))
        return false;
    return true;
}

bool set_path(std::string_view p, Url& url, std::string& error) {
    auto path = unescape(p, Mode::Path, error);
    if (!path) return false;
    url.path = std::move(*path);
    url.raw_path = escape(url.path, Mode::Path) == p ? std::string() : std::string(p);
    return true;
}

// Go's getScheme: a scheme is letters first, then letters, digits, + - . up to ':'.
bool get_scheme(std::string_view raw, std::string& scheme, std::string_view& rest, std::string& error) {
    for (std::size_t i = 0; i < raw.size(); ++i) {
        char c = raw[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
        if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
            if (i == 0) break;
            continue;
        }
        if (c == ':') {
            if (i == 0) {
                error = "missing protocol scheme";
                return false;
            }
            scheme = std::string(raw.substr(0, i));
            for (auto& ch : scheme) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            rest = raw.substr(i + 1);
            return true;
        }
        break;
    }
    rest = raw;
    return true;
}

std::optional<Url> parse_without_fragment(std::string_view raw, std::string& error) {
    for (unsigned char c : raw) {
        if (c < 0x20 || c == 0x7f) {
            error = "net/url: invalid control character in URL";
            return std::nullopt;
        }
    }
    Url url;
    if (raw == "*") {
        url.path = "*";
        return url;
    }
    std::string_view rest;
    if (!get_scheme(raw, url.scheme, rest, error)) return std::nullopt;
    std::size_t question = rest.find('?');
    if (!rest.empty() && rest.back() == '?' && question == rest.size() - 1) {
        rest.remove_suffix(1);  // ForceQuery: an empty query
    } else if (question != std::string_view::npos) {
        url.raw_query = std::string(rest.substr(question + 1));
        rest = rest.substr(0, question);
    }
    if (rest.empty() || rest[0] != '/') {
        if (!url.scheme.empty()) {
            url.opaque = std::string(rest);  // rootless paths are opaque (RFC 3986)
            return url;
        }
        auto segment = rest.substr(0, rest.find('/'));
        if (segment.find(':') != std::string_view::npos) {
            error = "first path segment in URL cannot contain colon";
            return std::nullopt;
        }
    }
    if ((!url.scheme.empty() || rest.substr(0, 3) != "///") && rest.substr(0, 2) == "//") {
        auto authority = rest.substr(2);
        rest = {};
        if (auto slash = authority.find('/'); slash != std::string_view::npos) {
            rest = authority.substr(slash);
            authority = authority.substr(0, slash);
        }
        if (!parse_authority(authority, url, error)) return std::nullopt;
    }
    if (!set_path(rest, url, error)) return std::nullopt;
    return url;
}

}  // namespace

std::string query_escape(std::string_view s) { return escape(s, Mode::QueryComponent); }

std::optional<std::string> query_unescape(std::string_view s, std::string& error) {
    return unescape(s, Mode::QueryComponent, error);
}

std::optional<Url> parse(std::string_view raw, std::string& error) {
    auto hash = raw.find('#');
    std::string_view without = raw.substr(0, hash);
    std::string inner;
    auto url = parse_without_fragment(without, inner);
    if (!url) {
        error = fmt::format("parse {}: {}", lang::go_quote(without), inner);
        return std::nullopt;
    }
    if (hash != std::string_view::npos) {
        auto frag = unescape(raw.substr(hash + 1), Mode::Fragment, inner);
        if (!frag) {
            error = fmt::format("parse {}: {}", lang::go_quote(raw), inner);
            return std::nullopt;
        }
        url->fragment = std::move(*frag);
    }
    return url;
}

// Go's splitHostPort as used by Hostname()/Port().
static void split_host_port(std::string_view host_port, std::string_view& host, std::string_view& port) {
    host = host_port;
    port = {};
    auto colon = host_port.rfind(':');
    if (colon != std::string_view::npos && valid_optional_port(host_port.substr(colon))) {
        host = host_port.substr(0, colon);
        port = host_port.substr(colon + 1);
    }
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
}

std::string Url::hostname() const {
    std::string_view h, p;
    split_host_port(host, h, p);
    return std::string(h);
}

std::string Url::port() const {
    std::string_view h, p;
    split_host_port(host, h, p);
    return std::string(p);
}

}  // namespace gavel::stdlib::go_url
