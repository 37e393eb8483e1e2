// time.*: nanosecond timestamps, Go layouts and durations, IANA time zones
// (the embedded tzdata, see zoneinfo.hpp), with OPA's errors.

#include <optional>

#include <fmt/format.h>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/civil_time.hpp"
#include "stdlib/go_time.hpp"
#include "stdlib/string_operands.hpp"
#include "stdlib/zoneinfo.hpp"

namespace gavel::stdlib {

namespace {

constexpr std::int64_t kNanos = 1'000'000'000;

// Layout names OPA accepts in place of a layout.
std::string_view named_layout(std::string_view name) {
    static constexpr std::pair<std::string_view, std::string_view> kLayouts[] = {
        {"ANSIC", "Mon Jan _2 15:04:05 2006"},          {"UnixDate", "Mon Jan _2 15:04:05 MST 2006"},
        {"RubyDate", "Mon Jan 02 15:04:05 -0700 2006"}, {"RFC822", "02 Jan 06 15:04 MST"},
        {"RFC822Z", "02 Jan 06 15:04 -0700"},           {"RFC850", "Monday, 02-Jan-06 15:04:05 MST"},
        {"RFC1123", "Mon, 02 Jan 2006 15:04:05 MST"},   {"RFC1123Z", "Mon, 02 Jan 2006 15:04:05 -0700"},
        {"RFC3339", "2006-01-02T15:04:05Z07:00"},       {"RFC3339Nano", "2006-01-02T15:04:05.999999999Z07:00"},
    };
    for (auto [k, v] : kLayouts)
        if (k == name) return v;
    return name;
}

// A timestamp in a zone: the first operand of time.date, time.format ...
struct ZonedTime {
    std::int64_t sec = 0;
    std::int32_t nsec = 0;
    std::shared_ptr<const zoneinfo::Zone> zone;
    std::string layout;

    go_time::Time in_zone() const { return {sec, nsec, zone->lookup(sec)}; }
    std::int64_t local_seconds() const { return sec + zone->lookup(sec).seconds; }
};

ZonedTime from_ns(std::int64_t ns, std::shared_ptr<const zoneinfo::Zone> zone) {
    return {civil::floor_div(ns, kNanos), static_cast<std::int32_t>(civil::floor_mod(ns, kNanos)), std::move(zone), {}};
}

// OPA's tzTime: number (ns) or [ns, tz] or [ns, tz, layout].
std::optional<ZonedTime> zoned_time(const Value& v, BuiltinResult& err) {
    constexpr std::string_view kWant = "either number (ns) or [number (ns), string (tz)]";
    const Value* ns = &v;
    std::string error;
    auto zone = zoneinfo::load("UTC", error);
    std::string layout;
    if (v.is_array()) {
        auto xs = v.array_elements();
        if (xs.empty()) {
            err = type_error(1, kWant, v);
            return std::nullopt;
        }
        ns = &xs[0];
        if (!ns->is_number()) {
            err = type_error(1, "number", *ns);
            return std::nullopt;
        }
        if (xs.size() > 1) {
            if (!xs[1].is_string()) {
                err = type_error(1, "string", xs[1]);
                return std::nullopt;
            }
            zone = zoneinfo::load(xs[1].as_string(), error);
            if (!zone) {
                err = BuiltinResult::error(error);
                return std::nullopt;
            }
        }
        if (xs.size() > 2) {
            if (!xs[2].is_string()) {
                err = type_error(1, "string", xs[2]);
                return std::nullopt;
            }
            layout = std::string(xs[2].as_string());
        }
    } else if (!v.is_number()) {
        err = type_error(1, kWant, v);
        return std::nullopt;
    }
    std::int64_t n = 0;
    if (!ns->as_int64(n)) {
        err = BuiltinResult::error("timestamp too big");
        return std::nullopt;
    }
    ZonedTime t = from_ns(n, zone);
    t.layout = std::move(layout);
    return t;
}

// Nanoseconds since the epoch, or OPA's range error beyond int64.
BuiltinResult safe_unix_nano(std::int64_t sec, std::int32_t nsec) {
    __int128 ns = static_cast<__int128>(sec) * kNanos + nsec;
    if (ns < INT64_MIN || ns > INT64_MAX) return BuiltinResult::error("time outside of valid range");
    return BuiltinResult::of(Value::integer(static_cast<std::int64_t>(ns)));
}

// Go's time.Date in a zone: normalises month and day overflow, then maps the
// local wall clock to an instant.
std::int64_t date_to_unix(std::int64_t year, std::int64_t month, std::int64_t day, std::int64_t seconds_of_day,
                          const zoneinfo::Zone& zone) {
    std::int64_t m0 = month - 1;
    year += civil::floor_div(m0, 12);
    m0 = civil::floor_mod(m0, 12);
    std::int64_t days = civil::days_from_civil(year, static_cast<int>(m0 + 1), 1) + day - 1;
    std::int64_t local = days * 86400 + seconds_of_day;
    int offset = zone.lookup(local).seconds;
    if (offset != 0) offset = zone.lookup(local - offset).seconds;
    return local - offset;
}

BuiltinResult parse_to_ns(std::string_view layout, std::string_view value) {
    std::string error;
    auto t = go_time::parse(layout, value, error);
    if (!t) return BuiltinResult::error(error);
    return safe_unix_nano(t->sec, t->nsec);
}

template <typename F>
BuiltinImpl with_zoned_time(F f) {
    return [f](Args a, BuiltinContext&) -> BuiltinResult {
        BuiltinResult err;
        auto t = zoned_time(a[0], err);
        if (!t) return err;
        return f(*t);
    };
}

Value int_array(std::initializer_list<std::int64_t> xs) {
    runtime::ArrayBuilder b(xs.size());
    for (auto x : xs) b.push_back(Value::integer(x));
    return b.build();
}

BuiltinResult time_diff(const ZonedTime& a, const ZonedTime& b_in) {
    // Both in the first operand's zone, earlier first.
    ZonedTime t1 = a, t2 = b_in;
    t2.zone = t1.zone;
    if (t1.sec > t2.sec || (t1.sec == t2.sec && t1.nsec > t2.nsec)) std::swap(t1, t2);
    auto split = [](const ZonedTime& t, civil::Date& d, std::int64_t& h, std::int64_t& m, std::int64_t& s) {
        std::int64_t local = t.local_seconds();
        std::int64_t days = civil::floor_div(local, 86400);
        std::int64_t sod = local - days * 86400;
        d = civil::civil_from_days(days);
        h = sod / 3600;
        m = sod / 60 % 60;
        s = sod % 60;
    };
    civil::Date d1{}, d2{};
    std::int64_t h1, m1, s1, h2, m2, s2;
    split(t1, d1, h1, m1, s1);
    split(t2, d2, h2, m2, s2);
    std::int64_t year = d2.year - d1.year, month = d2.month - d1.month, day = d2.day - d1.day;
    std::int64_t hour = h2 - h1, minute = m2 - m1, second = s2 - s1;
    if (second < 0) {
        second += 60;
        --minute;
    }
    if (minute < 0) {
        minute += 60;
        --hour;
    }
    if (hour < 0) {
        hour += 24;
        --day;
    }
    if (day < 0) {
        day += civil::days_in_month(d1.year, d1.month);
        --month;
    }
    if (month < 0) {
        month += 12;
        --year;
    }
    return BuiltinResult::of(int_array({year, month, day, hour, minute, second}));
}

}  // namespace

void register_time(Registry& r) {
    Builtin now;
    now.name = "time.now_ns";
    now.arity = 0;
    now.impl = [](Args, BuiltinContext& ctx) { return BuiltinResult::of(Value::integer(ctx.now())); };
    r.add(std::move(now));

    declare(r, "time.parse_ns", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (!a[1].is_string()) return type_error(2, "string", a[1]);
        return parse_to_ns(named_layout(a[0].as_string()), a[1].as_string());
    });
    declare(r, "time.parse_rfc3339_ns", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        return parse_to_ns(named_layout("RFC3339"), a[0].as_string());
    });
    declare(r, "time.parse_duration_ns", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        std::string error;
        auto d = go_time::parse_duration(a[0].as_string(), error);
        if (!d) return BuiltinResult::error(error);
        return BuiltinResult::of(Value::integer(*d));
    });
    declare(r, "time.format", 1, with_zoned_time([](const ZonedTime& t) {
                std::string_view layout = t.layout.empty() ? named_layout("RFC3339Nano") : named_layout(t.layout);
                return BuiltinResult::of(Value::string(go_time::format(t.in_zone(), layout)));
            }));
    declare(r, "time.date", 1, with_zoned_time([](const ZonedTime& t) {
                auto d = civil::civil_from_days(civil::floor_div(t.local_seconds(), 86400));
                return BuiltinResult::of(int_array({d.year, d.month, d.day}));
            }));
    declare(r, "time.clock", 1, with_zoned_time([](const ZonedTime& t) {
                std::int64_t sod = civil::floor_mod(t.local_seconds(), 86400);
                return BuiltinResult::of(int_array({sod / 3600, sod / 60 % 60, sod % 60}));
            }));
    declare(
        r, "time.weekday", 1, with_zoned_time([](const ZonedTime& t) {
            static constexpr const char* kDays[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                    "Thursday", "Friday", "Saturday"};
            return BuiltinResult::of(Value::string(kDays[civil::weekday(civil::floor_div(t.local_seconds(), 86400))]));
        }));
    declare(r, "time.add_date", 4, [](Args a, BuiltinContext&) {
        BuiltinResult err;
        auto t = zoned_time(a[0], err);
        if (!t) return err;
        std::int64_t years = 0, months = 0, days = 0;
        // OPA's IntOperand: 1.0 is not an integer operand.
        if (!int_operand(a[1], 2, years, err) || !int_operand(a[2], 3, months, err) || !int_operand(a[3], 4, days, err))
            return err;
        // Far beyond the representable range (and keeps the arithmetic in int64).
        constexpr std::int64_t kLimit = 1'000'000'000;
        if (years > kLimit || years < -kLimit || months > kLimit || months < -kLimit || days > kLimit || days < -kLimit)
            return BuiltinResult::error("time outside of valid range");
        std::int64_t local = t->local_seconds();
        std::int64_t day_number = civil::floor_div(local, 86400);
        auto d = civil::civil_from_days(day_number);
        std::int64_t sec =
            date_to_unix(d.year + years, d.month + months, d.day + days, local - day_number * 86400, *t->zone);
        return safe_unix_nano(sec, t->nsec);
    });
    declare(r, "time.diff", 2, [](Args a, BuiltinContext&) {
        BuiltinResult err;
        auto t1 = zoned_time(a[0], err);
        if (!t1) return err;
        auto t2 = zoned_time(a[1], err);
        if (!t2) return err;
        return time_diff(*t1, *t2);
    });
}

}  // namespace gavel::stdlib
