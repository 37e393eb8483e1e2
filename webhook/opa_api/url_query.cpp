#include "webhook/opa_api/url_query.hpp"

#include "support/hex_digit.hpp"

namespace gavel::webhook::opa_api {

namespace {

bool equal_fold(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x + 32);
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y + 32);
        if (x != y) return false;
    }
    return true;
}

}  // namespace

bool percent_decode(std::string_view in, std::string& out, bool plus_is_space) {
    out.clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '%') {
            if (i + 2 >= in.size()) return false;
            int hi = support::hex_digit_value(in[i + 1]);
            int lo = support::hex_digit_value(in[i + 2]);
            if (hi < 0 || lo < 0) return false;
            out.push_back(static_cast<char>(hi * 16 + lo));
            i += 2;
        } else if (c == '+' && plus_is_space) {
            out.push_back(' ');
        } else {
            out.push_back(c);
        }
    }
    return true;
}

UrlQuery::UrlQuery(std::string_view raw) : raw_empty_(raw.empty()) {
    while (!raw.empty()) {
        auto amp = raw.find('&');
        std::string_view part = raw.substr(0, amp);
        raw = amp == std::string_view::npos ? std::string_view{} : raw.substr(amp + 1);
        if (part.find(';') != std::string_view::npos) continue;  // Go: "invalid semicolon separator in query"
        if (part.empty()) continue;
        auto eq = part.find('=');
        std::string key, value;
        if (!percent_decode(part.substr(0, eq), key, true)) continue;
        if (eq != std::string_view::npos && !percent_decode(part.substr(eq + 1), value, true)) continue;
        pairs_.emplace_back(std::move(key), std::move(value));
    }
}

bool UrlQuery::has(std::string_view key) const {
    for (const auto& [k, v] : pairs_)
        if (k == key) return true;
    return false;
}

std::vector<std::string> UrlQuery::values(std::string_view key) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : pairs_)
        if (k == key) out.push_back(v);
    return out;
}

bool UrlQuery::flag(std::string_view key, bool if_empty) const {
    if (raw_empty_) return false;
    auto v = values(key);
    if (v.empty()) return false;
    if (v.size() == 1 && v[0].empty()) return if_empty;
    for (const auto& x : v)
        if (equal_fold(x, "true")) return true;
    return false;
}

}  // namespace gavel::webhook::opa_api
