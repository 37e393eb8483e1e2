// Suggestion lists; see suggestions.hpp.

#include "stdlib/graphql/suggestions.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

namespace gavel::stdlib::graphql {

namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Levenshtein distance of the lower-cased names (as gqlparser computes it),
// where a difference in case alone counts as one edit; nullopt beyond
// `threshold`.
std::optional<std::size_t> lexical_distance(std::string_view a, std::string_view b, std::size_t threshold) {
    if (a == b) return 0;
    std::string x = lower(a), y = lower(b);
    if (x == y) return 1;
    std::size_t n = x.size(), m = y.size();
    if ((n > m ? n - m : m - n) > threshold) return std::nullopt;
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            std::size_t cost = x[i - 1] == y[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
        }
    if (d[n][m] > threshold) return std::nullopt;
    return d[n][m];
}

std::string or_list(std::vector<std::string> items) {
    if (items.size() > 5) items.resize(5);
    if (items.size() == 2) return items[0] + " or " + items[1];
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += i + 1 == items.size() ? ", or " : ", ";
        out += items[i];
    }
    return out;
}

}  // namespace

std::vector<std::string> suggestion_list(std::string_view typed, const std::vector<std::string>& options) {
    std::size_t threshold = typed.size() * 4 / 10 + 1;
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const auto& option : options)
        if (auto d = lexical_distance(typed, option, threshold)) scored.emplace_back(*d, option);
    // Closest first; equally close ones keep the options' order.
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto& [d, name] : scored)
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    return out;
}

std::string quoted_or_list(const std::vector<std::string>& items) {
    std::vector<std::string> quoted;
    for (const auto& item : items) quoted.push_back("\"" + item + "\"");
    return or_list(std::move(quoted));
}

std::string did_you_mean(std::string_view prefix, std::string_view typed, const std::vector<std::string>& options,
                         bool quoted) {
    auto list = suggestion_list(typed, options);
    if (list.empty()) return {};
    return ' ' + std::string(prefix) + " " + (quoted ? quoted_or_list(list) : or_list(list)) + "?";
}

}  // namespace gavel::stdlib::graphql
