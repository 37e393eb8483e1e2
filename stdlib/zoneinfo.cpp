// TZif reading and POSIX TZ rules, following Go's time package semantics
// (lookup before the first transition, the footer after the last one).

#include "stdlib/zoneinfo.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>

#include "runtime/file_read.hpp"

#include "stdlib/civil_time.hpp"
#include "stdlib/zoneinfo_embedded.hpp"

namespace gavel::stdlib::zoneinfo {

namespace {

constexpr std::size_t kMaxTzifBytes = 1 << 20;

// ---- POSIX TZ strings -----------------------------------------------------

bool parse_name(std::string_view& s, std::string& name) {
    if (!s.empty() && s[0] == '<') {
        auto close = s.find('>');
        if (close == std::string_view::npos) return false;
        name = std::string(s.substr(1, close - 1));
        s = s.substr(close + 1);
        return true;
    }
    std::size_t n = 0;
    while (n < s.size() && std::isalpha(static_cast<unsigned char>(s[n]))) ++n;
    if (n < 3) return false;
    name = std::string(s.substr(0, n));
    s = s.substr(n);
    return true;
}

bool parse_number(std::string_view& s, int& out, int max_digits) {
    std::size_t n = 0;
    out = 0;
    while (n < s.size() && n < std::size_t(max_digits) && s[n] >= '0' && s[n] <= '9') out = out * 10 + (s[n++] - '0');
    if (n == 0) return false;
    s = s.substr(n);
    return true;
}

// [+-]hh[:mm[:ss]] in seconds.
bool parse_offset(std::string_view& s, int& seconds) {
    int sign = 1;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        sign = s[0] == '-' ? -1 : 1;
        s = s.substr(1);
    }
    int h = 0, m = 0, sec = 0;
    if (!parse_number(s, h, 3)) return false;
    if (!s.empty() && s[0] == ':') {
        s = s.substr(1);
        if (!parse_number(s, m, 2)) return false;
        if (!s.empty() && s[0] == ':') {
            s = s.substr(1);
            if (!parse_number(s, sec, 2)) return false;
        }
    }
    seconds = sign * (h * 3600 + m * 60 + sec);
    return true;
}

bool parse_rule(std::string_view& s, PosixRule& r) {
    if (s.empty()) return false;
    if (s[0] == 'J') {
        s = s.substr(1);
        r.kind = PosixRule::Kind::Julian1;
        if (!parse_number(s, r.day, 3) || r.day < 1 || r.day > 365) return false;
    } else if (s[0] == 'M') {
        s = s.substr(1);
        r.kind = PosixRule::Kind::MonthWeekDay;
        if (!parse_number(s, r.month, 2) || r.month < 1 || r.month > 12) return false;
        if (s.empty() || s[0] != '.') return false;
        s = s.substr(1);
        if (!parse_number(s, r.week, 1) || r.week < 1 || r.week > 5) return false;
        if (s.empty() || s[0] != '.') return false;
        s = s.substr(1);
        if (!parse_number(s, r.day, 1) || r.day > 6) return false;
    } else {
        r.kind = PosixRule::Kind::Julian0;
        if (!parse_number(s, r.day, 3) || r.day > 365) return false;
    }
    r.time = 7200;
    if (!s.empty() && s[0] == '/') {
        s = s.substr(1);
        if (!parse_offset(s, r.time)) return false;
    }
    return true;
}

// Seconds from the start of `year` (UTC) to the rule's moment, given the
// offset in force before it.
std::int64_t rule_time(std::int64_t year, const PosixRule& r, int offset) {
    std::int64_t day_of_year = 0;
    switch (r.kind) {
        case PosixRule::Kind::Julian1: day_of_year = r.day - 1 + (civil::is_leap(year) && r.day >= 60 ? 1 : 0); break;
        case PosixRule::Kind::Julian0: day_of_year = r.day; break;
        case PosixRule::Kind::MonthWeekDay: {
            std::int64_t first = civil::days_from_civil(year, r.month, 1);
            int d = (r.day - civil::weekday(first) + 7) % 7;
            for (int i = 1; i < r.week; ++i) {
                if (d + 7 >= civil::days_in_month(year, r.month)) break;
                d += 7;
            }
            day_of_year = first - civil::days_from_civil(year, 1, 1) + d;
            break;
        }
    }
    return day_of_year * 86400 + r.time - offset;
}

Offset footer_lookup(const PosixTz& tz, std::int64_t sec) {
    if (!tz.has_dst) return tz.standard;
    std::int64_t days = civil::floor_div(sec, 86400);
    std::int64_t year = civil::civil_from_days(days).year;
    std::int64_t year_start = civil::days_from_civil(year, 1, 1) * 86400;
    std::int64_t ysec = sec - year_start;
    std::int64_t start = rule_time(year, tz.start, tz.standard.seconds);
    std::int64_t end = rule_time(year, tz.end, tz.daylight.seconds);
    if (end < start) {  // southern hemisphere: daylight time spans the new year
        return (ysec < end || ysec >= start) ? tz.daylight : tz.standard;
    }
    return (ysec >= start && ysec < end) ? tz.daylight : tz.standard;
}

// ---- TZif -------------------------------------------------------------------

struct Reader {
    std::string_view data;
    std::size_t pos = 0;
    bool ok = true;
    std::string_view take(std::size_t n) {
        if (pos + n > data.size()) {
            ok = false;
            return {};
        }
        auto r = data.substr(pos, n);
        pos += n;
        return r;
    }
    std::int64_t be(std::size_t n) {
        auto b = take(n);
        if (!ok) return 0;
        std::uint64_t v = 0;
        for (unsigned char c : b) v = (v << 8) | c;
        if (n == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(v));
        return static_cast<std::int64_t>(v);
    }
};

// A TZif file (/etc/localtime, TZ=:/path): empty when it is not a regular file
// of at most kMaxTzifBytes (a FIFO or a device there must not hang the process).
std::string read_file(const std::string& path) {
    auto read = runtime::read_whole_file(path, kMaxTzifBytes, runtime::NonRegular::Refuse);
    return read.ok ? std::move(read.text) : std::string();
}

std::shared_ptr<const Zone> utc_zone() {
    static const auto utc = [] {
        auto z = std::make_shared<Zone>();
        z->name = "UTC";
        z->types.push_back({0, "UTC"});
        z->is_dst.push_back(false);
        return z;
    }();
    return utc;
}

std::shared_ptr<const Zone> from_tzif(std::string_view data, const std::string& name) {
    if (data.empty()) return nullptr;
    auto zone = std::make_shared<Zone>();
    if (!parse_tzif(data, *zone)) return nullptr;
    zone->name = name;
    return zone;
}

std::shared_ptr<const Zone> load_file(const std::string& path, const std::string& name) {
    return from_tzif(read_file(path), name);
}

std::shared_ptr<const Zone> local_zone() {
    static const auto local = []() -> std::shared_ptr<const Zone> {
        std::shared_ptr<const Zone> z;
        const char* tz = std::getenv("TZ");
        if (!tz) {
            z = load_file("/etc/localtime", "Local");
        } else if (*tz) {
            std::string name = tz[0] == ':' ? tz + 1 : tz;
            // TZ=Europe/Berlin names an embedded zone; TZ=:/path a TZif file.
            if (!name.empty()) z = name[0] == '/' ? load_file(name, "Local") : from_tzif(embedded_tzif(name), "Local");
        }
        if (!z) {
            auto u = std::make_shared<Zone>(*utc_zone());
            u->name = "Local";
            z = u;
        }
        return z;
    }();
    return local;
}

}  // namespace

bool parse_posix_tz(std::string_view s, PosixTz& out) {
    out = PosixTz{};
    if (!parse_name(s, out.standard.abbrev)) return false;
    int off = 0;
    if (!parse_offset(s, off)) return false;
    out.standard.seconds = -off;  // POSIX counts west of UTC as positive
    if (s.empty()) return true;
    out.has_dst = true;
    if (!parse_name(s, out.daylight.abbrev)) return false;
    out.daylight.seconds = out.standard.seconds + 3600;
    if (!s.empty() && s[0] != ',') {
        if (!parse_offset(s, off)) return false;
        out.daylight.seconds = -off;
    }
    if (s.empty()) s = ",M3.2.0,M11.1.0";  // Go's default: the US rules
    if (s[0] != ',') return false;
    s = s.substr(1);
    if (!parse_rule(s, out.start)) return false;
    if (s.empty() || s[0] != ',') return false;
    s = s.substr(1);
    if (!parse_rule(s, out.end)) return false;
    return s.empty();
}

bool parse_tzif(std::string_view data, Zone& out) {
    Reader r{data};
    auto header = [&](int& version, std::int64_t counts[6]) {
        if (r.take(4) != "TZif") return false;
        auto v = r.take(1);
        version = v.empty() || v[0] == 0 ? 1 : v[0] - '0';
        r.take(15);
        for (int i = 0; i < 6; ++i) counts[i] = r.be(4);
        for (int i = 0; i < 6; ++i)
            if (counts[i] < 0 || counts[i] > 100000) return false;
        return r.ok;
    };
    int version = 1;
    std::int64_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
    if (!header(version, c)) return false;
    std::size_t time_size = 4;
    if (version >= 2) {
        // Skip the 32-bit block; the 64-bit one follows with its own header.
        r.take(static_cast<std::size_t>(c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0]));
        if (!header(version, c)) return false;
        time_size = 8;
    }
    out.transitions.clear();
    for (std::int64_t i = 0; i < c[3]; ++i) out.transitions.push_back(r.be(time_size));
    for (std::int64_t i = 0; i < c[3]; ++i) out.transition_type.push_back(static_cast<std::uint8_t>(r.be(1)));
    struct RawType {
        int off;
        bool dst;
        std::size_t abbr;
    };
    std::vector<RawType> raw;
    for (std::int64_t i = 0; i < c[4]; ++i) {
        int off = static_cast<int>(r.be(4));
        bool dst = r.be(1) != 0;
        auto abbr = static_cast<std::size_t>(r.be(1));
        raw.push_back({off, dst, abbr});
    }
    auto chars = r.take(static_cast<std::size_t>(c[5]));
    r.take(static_cast<std::size_t>(c[2] * (time_size + 4) + c[1] + c[0]));
    if (!r.ok || raw.empty()) return false;
    out.types.clear();
    out.is_dst.clear();
    for (const auto& t : raw) {
        std::string abbr;
        if (t.abbr < chars.size()) abbr = std::string(chars.substr(t.abbr, chars.substr(t.abbr).find('\0')));
        out.types.push_back({t.off, abbr});
        out.is_dst.push_back(t.dst);
    }
    for (auto t : out.transition_type)
        if (t >= out.types.size()) return false;
    if (version >= 2 && r.pos < data.size() && data[r.pos] == '\n') {
        auto rest = data.substr(r.pos + 1);
        auto nl = rest.find('\n');
        if (nl != std::string_view::npos && nl > 0) out.has_footer = parse_posix_tz(rest.substr(0, nl), out.footer);
    }
    return true;
}

Offset Zone::lookup(std::int64_t sec) const {
    if (types.empty() || is_dst.size() != types.size()) return {0, "UTC"};
    if (transitions.empty() || sec < transitions.front()) {
        if (transitions.empty() && has_footer) return footer_lookup(footer, sec);
        // Go's lookupFirstZone: the first standard-time type.
        if (!transitions.empty() && is_dst[transition_type[0]]) {
            for (int i = transition_type[0] - 1; i >= 0; --i)
                if (!is_dst[static_cast<std::size_t>(i)]) return types[static_cast<std::size_t>(i)];
        }
        for (std::size_t i = 0; i < types.size(); ++i)
            if (!is_dst[i]) return types[i];
        return types[0];
    }
    auto it = std::upper_bound(transitions.begin(), transitions.end(), sec);
    auto idx = static_cast<std::size_t>(it - transitions.begin()) - 1;
    if (idx == transitions.size() - 1 && has_footer) return footer_lookup(footer, sec);
    return types[transition_type[idx]];
}

std::shared_ptr<const Zone> load(std::string_view name, std::string& error) {
    if (name.empty() || name == "UTC") return utc_zone();
    if (name == "Local") return local_zone();
    if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
        error = "time: invalid location name";
        return nullptr;
    }
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const Zone>, std::less<>> cache;
    std::lock_guard lock(mutex);
    if (auto it = cache.find(name); it != cache.end()) return it->second;
    auto zone = from_tzif(embedded_tzif(name), std::string(name));
    if (!zone) {
        error = "unknown time zone " + std::string(name);
        return nullptr;
    }
    cache.emplace(std::string(name), zone);
    return zone;
}

}  // namespace gavel::stdlib::zoneinfo
