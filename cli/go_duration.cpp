#include "cli/go_duration.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace gavel::cli {

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view s) {
    if (s.empty()) return std::nullopt;
    std::size_t i = 0;
    bool negative = false;
    if (s[i] == '-' || s[i] == '+') negative = s[i++] == '-';
    if (s.substr(i) == "0") return std::chrono::nanoseconds(0);
    if (i == s.size()) return std::nullopt;
    long double total = 0;
    while (i < s.size()) {
        std::size_t start = i;
        while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
        if (i == start) return std::nullopt;
        std::string number(s.substr(start, i - start));
        if (std::count(number.begin(), number.end(), '.') > 1 || number == ".") return std::nullopt;
        std::size_t unit_start = i;
        while (i < s.size() && !std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '.') ++i;
        std::string_view unit = s.substr(unit_start, i - unit_start);
        long double scale;
        if (unit == "ns") scale = 1;
        else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") scale = 1e3;
        else if (unit == "ms") scale = 1e6;
        else if (unit == "s") scale = 1e9;
        else if (unit == "m") scale = 60e9;
        else if (unit == "h") scale = 3600e9;
        else return std::nullopt;  // a unit is required (Go: "missing unit in duration")
        total += std::stold(number) * scale;
    }
    if (total > 9.2e18L) return std::nullopt;
    auto ns = static_cast<long long>(total);
    return std::chrono::nanoseconds(negative ? -ns : ns);
}

}  // namespace gavel::cli
