#pragma once
// Go's time layouts ("2006-01-02T15:04:05Z07:00") for formatting and parsing,
// and Go's duration syntax ("1h30m", plus OPA's d/w/y), with Go's error texts.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "stdlib/zoneinfo.hpp"

namespace gavel::stdlib::go_time {

// An instant with the zone offset it is shown in.
struct Time {
    std::int64_t sec = 0;   // Unix seconds
    std::int32_t nsec = 0;  // 0..999'999'999
    zoneinfo::Offset offset{0, "UTC"};
};

// Go's Time.Format.
std::string format(const Time& t, std::string_view layout);

// Go's time.Parse (default zone UTC). On failure `error` is Go's message:
// parsing time "x" as "y": cannot parse "x" as "2006".
std::optional<Time> parse(std::string_view layout, std::string_view value, std::string& error);

// The units parse_duration takes: Go's (ns, us/µs, ms, s, m, h), or those and d (24h),
// w (7d) and y (365d), which the builtins (time.parse_duration_ns, http.send) take.
enum class DurationUnits : std::uint8_t { Go, GoAndDays };

// Go's time.ParseDuration with `units`; on failure `error` is Go's message.
std::optional<std::int64_t> parse_duration(std::string_view s, std::string& error,
                                           DurationUnits units = DurationUnits::GoAndDays);

// A flag's duration as OPA's CLI and server take it (Go's units); nullopt when invalid.
std::optional<std::chrono::nanoseconds> parse_flag_duration(std::string_view s);

// Go's quote() in time error messages: non-ASCII and control bytes as \xNN.
std::string quote(std::string_view s);

}  // namespace gavel::stdlib::go_time
