#pragma once
// Go's time.ParseDuration, as OPA's flags take durations: "300ms", "1.5h",
// "2h45m", "0" (units ns, us/µs, ms, s, m, h; a unit is required but for 0).

#include <chrono>
#include <optional>
#include <string_view>

namespace gavel::cli {

std::optional<std::chrono::nanoseconds> parse_go_duration(std::string_view text);

}  // namespace gavel::cli
