#pragma once
// The IANA time zone database embedded into gavel at build time (from Debian's
// tzdata package, by stdlib/embed_tzdata.py), as OPA embeds Go's tzdata: the
// same answers on every host, no file read at run time, and time zones work in
// an empty container. The system's /usr/share/zoneinfo is not consulted.

#include <cstddef>
#include <string_view>

namespace gavel::stdlib::zoneinfo {

// The TZif bytes of zone `name` ("Europe/Berlin", "UTC"); empty if unknown.
std::string_view embedded_tzif(std::string_view name);
// The tzdata release embedded ("2025b").
std::string_view embedded_tzdata_version();
std::size_t embedded_zone_count();

}  // namespace gavel::stdlib::zoneinfo
