#pragma once
// IANA time zones from the database embedded at build time (TZif files of
// Debian's tzdata, see zoneinfo_embedded.hpp), as OPA's embedded Go tzdata.
// libstdc++ 12 has no std::chrono::locate_zone, so the TZif format (RFC 8536)
// and its POSIX TZ footer for times after the last transition are read here.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::stdlib::zoneinfo {

struct Offset {
    int seconds = 0;     // east of UTC
    std::string abbrev;  // "PST", "CEST", "+0530"
};

// One rule of a POSIX TZ string ("M3.2.0/2", "J60", "59").
struct PosixRule {
    enum class Kind { Julian1, Julian0, MonthWeekDay } kind = Kind::MonthWeekDay;
    int day = 0, week = 0, month = 0;
    int time = 7200;  // seconds after local midnight
};

struct PosixTz {
    Offset standard;
    Offset daylight;
    bool has_dst = false;
    PosixRule start, end;
};

class Zone {
public:
    std::string name;
    // The offset in force at `unix_seconds`.
    Offset lookup(std::int64_t unix_seconds) const;

    // Filled by the loader.
    std::vector<std::int64_t> transitions;      // ascending
    std::vector<std::uint8_t> transition_type;  // index into types
    std::vector<Offset> types;
    std::vector<bool> is_dst;  // per type
    bool has_footer = false;
    PosixTz footer;
};

// "UTC" or "" gives UTC, "Local" the system zone (TZ, /etc/localtime).
// nullptr with Go's error text ("unknown time zone X") when not found.
std::shared_ptr<const Zone> load(std::string_view name, std::string& error);

// Parses a POSIX TZ string ("CET-1CEST,M3.5.0,M10.5.0/3"); false if malformed.
bool parse_posix_tz(std::string_view s, PosixTz& out);

// Parses TZif bytes.
bool parse_tzif(std::string_view data, Zone& out);

}  // namespace gavel::stdlib::zoneinfo
