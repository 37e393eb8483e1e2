#pragma once
// A request's query string as Go's net/url reads it (OPA's server uses
// r.URL.Query()): pairs split on '&', keys and values unescaped ('+' is a
// space); a pair with a ';' or a bad escape is dropped, as Go drops it.
// Also percent-decoding of path segments (Go's url.PathUnescape).

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gavel::webhook::opa_api {

class UrlQuery {
public:
    explicit UrlQuery(std::string_view raw);

    bool empty() const { return raw_empty_; }
    bool has(std::string_view key) const;
    // Every value of `key`, in order.
    std::vector<std::string> values(std::string_view key) const;
    // OPA's getBoolParam: absent -> false; given once without a value -> `if_empty`;
    // otherwise true when any value is "true" (any case).
    bool flag(std::string_view key, bool if_empty = true) const;

private:
    bool raw_empty_ = true;
    std::vector<std::pair<std::string, std::string>> pairs_;
};

// %XX escapes decoded (and '+' as a space when `plus_is_space`); false on a bad escape.
bool percent_decode(std::string_view in, std::string& out, bool plus_is_space);

}  // namespace gavel::webhook::opa_api
