#include "cli/byte_size.hpp"

#include <charconv>
#include <limits>
#include <utility>

namespace gavel::cli {

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
    std::uint64_t number = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec != std::errc() || end == text.data()) return std::nullopt;
    std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
    static constexpr std::pair<std::string_view, std::uint64_t> units[] = {
        {"", 1},
        {"k", 1000},
        {"K", 1000},
        {"M", 1000000},
        {"G", 1000000000},
        {"Ki", 1ull << 10},
        {"Mi", 1ull << 20},
        {"Gi", 1ull << 30},
        {"Ti", 1ull << 40},
        {"T", 1000000000000ull},
    };
    for (const auto& [name, factor] : units) {
        if (suffix != name) continue;
        if (number > std::numeric_limits<std::uint64_t>::max() / factor) return std::nullopt;
        return number * factor;
    }
    return std::nullopt;
}

}  // namespace gavel::cli
