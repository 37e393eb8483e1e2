#pragma once
// URL escaping and parsing with the rules of Go's net/url, which OPA's
// urlquery.* and uri.* builtins expose: the same characters are escaped, the
// same inputs are rejected, and errors read as Go's do.

#include <optional>
#include <string>
#include <string_view>

namespace gavel::stdlib::go_url {

// url.QueryEscape: space becomes '+', everything outside [A-Za-z0-9-_.~] is %XX.
std::string query_escape(std::string_view s);

// url.QueryUnescape; on failure `error` gets Go's message (invalid URL escape "%zz").
std::optional<std::string> query_unescape(std::string_view s, std::string& error);

struct Url {
    std::string scheme;
    std::string opaque;
    std::string host;      // as written after unescaping, port included
    std::string path;      // decoded
    std::string raw_path;  // the original path when decoding does not round-trip, else ""
    std::string raw_query;
    std::string fragment;  // decoded

    std::string hostname() const;  // host without port and IPv6 brackets
    std::string port() const;
};

// url.Parse; on failure `error` holds Go's full message, e.g.
// `parse "http://x%zz": invalid URL escape "%zz"`.
std::optional<Url> parse(std::string_view raw, std::string& error);

}  // namespace gavel::stdlib::go_url
