// Go layouts and durations: the layout is cut into literal text and "std"
// elements the way Go's time package does (its reference time
// Mon Jan 2 15:04:05 MST 2006), then formatted or parsed element by element.

#include "stdlib/go_time.hpp"

#include <array>

#include <fmt/format.h>

#include "stdlib/civil_time.hpp"

namespace gavel::stdlib::go_time {

namespace {

enum class Std {
    None,
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    PM,
    pm,
    TZ,
    ISO8601TZ,
    ISO8601SecondsTZ,
    ISO8601ShortTZ,
    ISO8601ColonTZ,
    ISO8601ColonSecondsTZ,
    NumTZ,
    NumSecondsTz,
    NumShortTZ,
    NumColonTZ,
    NumColonSecondsTZ,
    FracSecond0,
    FracSecond9,
};

struct Chunk {
    std::string_view prefix;  // literal text before the element
    Std std = Std::None;
    std::string_view std_text;  // the element as written in the layout
    int frac_digits = 0;
    char frac_separator = '.';
    std::string_view suffix;  // the rest of the layout
};

bool starts_with(std::string_view s, std::size_t i, std::string_view p) { return s.substr(i, p.size()) == p; }
bool is_digit_at(std::string_view s, std::size_t i) { return i < s.size() && s[i] >= '0' && s[i] <= '9'; }

// Go's nextStdChunk.
Chunk next_chunk(std::string_view layout) {
    for (std::size_t i = 0; i < layout.size(); ++i) {
        auto found = [&](Std std, std::size_t len) {
            return Chunk{layout.substr(0, i), std, layout.substr(i, len), 0, '.', layout.substr(i + len)};
        };
        switch (layout[i]) {
            case 'J':
                if (starts_with(layout, i, "Jan"))
                    return starts_with(layout, i, "January") ? found(Std::LongMonth, 7) : found(Std::Month, 3);
                break;
            case 'M':
                if (starts_with(layout, i, "Mon"))
                    return starts_with(layout, i, "Monday") ? found(Std::LongWeekDay, 6) : found(Std::WeekDay, 3);
                if (starts_with(layout, i, "MST")) return found(Std::TZ, 3);
                break;
            case '0':
                if (i + 1 < layout.size() && layout[i + 1] >= '1' && layout[i + 1] <= '6') {
                    static constexpr Std kZero[] = {Std::ZeroMonth,  Std::ZeroDay,    Std::ZeroHour12,
                                                    Std::ZeroMinute, Std::ZeroSecond, Std::Year};
                    return found(kZero[layout[i + 1] - '1'], 2);
                }
                if (starts_with(layout, i, "002")) return found(Std::ZeroYearDay, 3);
                break;
            case '1':
                if (starts_with(layout, i, "15")) return found(Std::Hour, 2);
                return found(Std::NumMonth, 1);
            case '2':
                if (starts_with(layout, i, "2006")) return found(Std::LongYear, 4);
                return found(Std::Day, 1);
            case '_':
                if (starts_with(layout, i, "_2")) {
                    // "_2006" is a literal underscore followed by the year.
                    if (starts_with(layout, i + 1, "2006"))
                        return Chunk{layout.substr(0, i + 1), Std::LongYear, layout.substr(i + 1, 4), 0, '.',
                                     layout.substr(i + 5)};
                    return found(Std::UnderDay, 2);
                }
                if (starts_with(layout, i, "__2")) return found(Std::UnderYearDay, 3);
                break;
            case '3': return found(Std::Hour12, 1);
            case '4': return found(Std::Minute, 1);
            case '5': return found(Std::Second, 1);
            case 'P':
                if (starts_with(layout, i, "PM")) return found(Std::PM, 2);
                break;
            case 'p':
                if (starts_with(layout, i, "pm")) return found(Std::pm, 2);
                break;
            case '-':
                if (starts_with(layout, i, "-070000")) return found(Std::NumSecondsTz, 7);
                if (starts_with(layout, i, "-07:00:00")) return found(Std::NumColonSecondsTZ, 9);
                if (starts_with(layout, i, "-0700")) return found(Std::NumTZ, 5);
                if (starts_with(layout, i, "-07:00")) return found(Std::NumColonTZ, 6);
                if (starts_with(layout, i, "-07")) return found(Std::NumShortTZ, 3);
                break;
            case 'Z':
                if (starts_with(layout, i, "Z070000")) return found(Std::ISO8601SecondsTZ, 7);
                if (starts_with(layout, i, "Z07:00:00")) return found(Std::ISO8601ColonSecondsTZ, 9);
                if (starts_with(layout, i, "Z0700")) return found(Std::ISO8601TZ, 5);
                if (starts_with(layout, i, "Z07:00")) return found(Std::ISO8601ColonTZ, 6);
                if (starts_with(layout, i, "Z07")) return found(Std::ISO8601ShortTZ, 3);
                break;
            case '.':
            case ',':
                if (i + 1 < layout.size() && (layout[i + 1] == '0' || layout[i + 1] == '9')) {
                    char ch = layout[i + 1];
                    std::size_t j = i + 1;
                    while (j < layout.size() && layout[j] == ch) ++j;
                    if (!is_digit_at(layout, j)) {
                        Chunk c = found(ch == '0' ? Std::FracSecond0 : Std::FracSecond9, j - i);
                        c.frac_digits = static_cast<int>(j - (i + 1));
                        c.frac_separator = layout[i];
                        return c;
                    }
                }
                break;
            default: break;
        }
    }
    return Chunk{layout, Std::None, {}, 0, '.', {}};
}

constexpr std::array<std::string_view, 12> kLongMonths = {"January",   "February", "March",    "April",
                                                          "May",       "June",     "July",     "August",
                                                          "September", "October",  "November", "December"};
constexpr std::array<std::string_view, 7> kLongDays = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                       "Thursday", "Friday", "Saturday"};

void append_int(std::string& out, std::int64_t x, int width, char pad = '0') {
    if (x < 0) {
        out += '-';
        x = -x;
    }
    std::string digits = std::to_string(x);
    if (static_cast<int>(digits.size()) < width) out.append(static_cast<std::size_t>(width) - digits.size(), pad);
    out += digits;
}

}  // namespace

std::string quote(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c >= 0x80 || c < ' ') {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        } else {
            if (c == '"' || c == '\\') out += '\\';
            out += static_cast<char>(c);
        }
    }
    out += '"';
    return out;
}

std::string format(const Time& t, std::string_view layout) {
    std::int64_t local = t.sec + t.offset.seconds;
    std::int64_t days = civil::floor_div(local, 86400);
    auto secs_of_day = static_cast<int>(local - days * 86400);
    civil::Date date = civil::civil_from_days(days);
    int hour = secs_of_day / 3600, minute = secs_of_day / 60 % 60, second = secs_of_day % 60;
    int yday = static_cast<int>(days - civil::days_from_civil(date.year, 1, 1)) + 1;
    int wday = civil::weekday(days);
    int offset = t.offset.seconds;

    std::string out;
    while (!layout.empty()) {
        Chunk c = next_chunk(layout);
        out += c.prefix;
        if (c.std == Std::None) break;
        layout = c.suffix;
        switch (c.std) {
            case Std::Year: append_int(out, civil::floor_mod(date.year, 100), 2); break;
            case Std::LongYear: append_int(out, date.year, 4); break;
            case Std::Month: out += kLongMonths[date.month - 1].substr(0, 3); break;
            case Std::LongMonth: out += kLongMonths[date.month - 1]; break;
            case Std::NumMonth: append_int(out, date.month, 0); break;
            case Std::ZeroMonth: append_int(out, date.month, 2); break;
            case Std::WeekDay: out += kLongDays[wday].substr(0, 3); break;
            case Std::LongWeekDay: out += kLongDays[wday]; break;
            case Std::Day: append_int(out, date.day, 0); break;
            case Std::UnderDay: append_int(out, date.day, 2, ' '); break;
            case Std::ZeroDay: append_int(out, date.day, 2); break;
            case Std::UnderYearDay: append_int(out, yday, 3, ' '); break;
            case Std::ZeroYearDay: append_int(out, yday, 3); break;
            case Std::Hour: append_int(out, hour, 2); break;
            case Std::Hour12: append_int(out, hour % 12 == 0 ? 12 : hour % 12, 0); break;
            case Std::ZeroHour12: append_int(out, hour % 12 == 0 ? 12 : hour % 12, 2); break;
            case Std::Minute: append_int(out, minute, 0); break;
            case Std::ZeroMinute: append_int(out, minute, 2); break;
            case Std::Second: append_int(out, second, 0); break;
            case Std::ZeroSecond: append_int(out, second, 2); break;
            case Std::PM: out += hour >= 12 ? "PM" : "AM"; break;
            case Std::pm: out += hour >= 12 ? "pm" : "am"; break;
            case Std::ISO8601TZ:
            case Std::ISO8601ColonTZ:
            case Std::ISO8601SecondsTZ:
            case Std::ISO8601ShortTZ:
            case Std::ISO8601ColonSecondsTZ:
            case Std::NumTZ:
            case Std::NumColonTZ:
            case Std::NumSecondsTz:
            case Std::NumShortTZ:
            case Std::NumColonSecondsTZ: {
                bool iso = c.std == Std::ISO8601TZ || c.std == Std::ISO8601ColonTZ || c.std == Std::ISO8601SecondsTZ ||
                           c.std == Std::ISO8601ShortTZ || c.std == Std::ISO8601ColonSecondsTZ;
                if (offset == 0 && iso) {
                    out += 'Z';
                    break;
                }
                int zone = offset / 60;
                int abs_offset = offset;
                if (zone < 0) {
                    out += '-';
                    zone = -zone;
                    abs_offset = -abs_offset;
                } else {
                    out += '+';
                }
                append_int(out, zone / 60, 2);
                bool colon = c.std == Std::ISO8601ColonTZ || c.std == Std::NumColonTZ ||
                             c.std == Std::ISO8601ColonSecondsTZ || c.std == Std::NumColonSecondsTZ;
                if (colon) out += ':';
                if (c.std != Std::NumShortTZ && c.std != Std::ISO8601ShortTZ) append_int(out, zone % 60, 2);
                if (c.std == Std::ISO8601SecondsTZ || c.std == Std::NumSecondsTz || c.std == Std::NumColonSecondsTZ ||
                    c.std == Std::ISO8601ColonSecondsTZ) {
                    if (c.std == Std::NumColonSecondsTZ || c.std == Std::ISO8601ColonSecondsTZ) out += ':';
                    append_int(out, abs_offset % 60, 2);
                }
                break;
            }
            case Std::TZ:
                if (!t.offset.abbrev.empty()) {
                    out += t.offset.abbrev;
                } else {
                    int zone = offset / 60;
                    out += zone < 0 ? '-' : '+';
                    if (zone < 0) zone = -zone;
                    append_int(out, zone / 60, 2);
                    append_int(out, zone % 60, 2);
                }
                break;
            case Std::FracSecond0:
            case Std::FracSecond9: {
                std::string digits = fmt::format("{:09d}", t.nsec);
                std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(c.frac_digits), 9);
                digits = digits.substr(0, n);
                if (c.std == Std::FracSecond9) {
                    while (!digits.empty() && digits.back() == '0') digits.pop_back();
                    if (digits.empty()) break;
                }
                out += c.frac_separator;
                out += digits;
                break;
            }
            case Std::None: break;
        }
    }
    return out;
}

namespace {

// Go's getnum: one or two digits (exactly two when `fixed`).
bool getnum(std::string_view& s, bool fixed, int& out) {
    if (!is_digit_at(s, 0)) return false;
    if (!is_digit_at(s, 1)) {
        if (fixed) return false;
        out = s[0] - '0';
        s.remove_prefix(1);
        return true;
    }
    out = (s[0] - '0') * 10 + (s[1] - '0');
    s.remove_prefix(2);
    return true;
}

// Go's getnum3: one to three digits (exactly three when `fixed`).
bool getnum3(std::string_view& s, bool fixed, int& out) {
    int n = 0, i = 0;
    for (; i < 3 && is_digit_at(s, static_cast<std::size_t>(i)); ++i)
        n = n * 10 + (s[static_cast<std::size_t>(i)] - '0');
    if (i == 0 || (fixed && i != 3)) return false;
    out = n;
    s.remove_prefix(static_cast<std::size_t>(i));
    return true;
}

std::string_view cut_space(std::string_view s) {
    while (!s.empty() && s[0] == ' ') s.remove_prefix(1);
    return s;
}

// Go's skip: literal layout text must match; a space matches any run of spaces.
bool skip(std::string_view& value, std::string_view prefix) {
    while (!prefix.empty()) {
        if (prefix[0] == ' ') {
            if (!value.empty() && value[0] != ' ') return false;
            prefix = cut_space(prefix);
            value = cut_space(value);
            continue;
        }
        if (value.empty() || value[0] != prefix[0]) return false;
        prefix.remove_prefix(1);
        value.remove_prefix(1);
    }
    return true;
}

bool lookup_name(std::string_view& value, std::size_t len_limit, bool long_names, bool months, int& index) {
    auto eq_fold = [](std::string_view a, std::string_view b) {
        if (a.size() != b.size()) return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
                return false;
        return true;
    };
    (void)len_limit;
    std::size_t count = months ? 12 : 7;
    for (std::size_t i = 0; i < count; ++i) {
        std::string_view name = months ? kLongMonths[i] : kLongDays[i];
        if (!long_names) name = name.substr(0, 3);
        if (value.size() >= name.size() && eq_fold(value.substr(0, name.size()), name)) {
            index = static_cast<int>(i);
            value.remove_prefix(name.size());
            return true;
        }
    }
    return false;
}

// Go's parseTimeZone: the length of a zone abbreviation at the start of value.
std::size_t time_zone_length(std::string_view value) {
    if (value.size() < 3) return 0;
    if (value.size() >= 4 && (value.substr(0, 4) == "ChST" || value.substr(0, 4) == "MeST")) return 4;
    if (value.substr(0, 3) == "GMT") {
        // GMT followed by an optional signed hour offset.
        std::string_view rest = value.substr(3);
        if (rest.empty() || (rest[0] != '+' && rest[0] != '-')) return 3;
        std::size_t i = 1;
        std::int64_t x = 0;
        while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9' && i < 8) x = x * 10 + (rest[i++] - '0');
        if (i == 1 || x > 23) return 3;
        return 3 + i;
    }
    if (value[0] == '+' || value[0] == '-') {
        std::size_t i = 1;
        std::int64_t x = 0;
        while (i < value.size() && value[i] >= '0' && value[i] <= '9' && i < 8) x = x * 10 + (value[i++] - '0');
        if (i == 1 || x > 23) return 0;
        return i;
    }
    std::size_t upper = 0;
    while (upper < value.size() && value[upper] >= 'A' && value[upper] <= 'Z') ++upper;
    switch (upper) {
        case 0:
        case 1:
        case 2:
        case 6: return 0;
        case 5: return value[4] == 'T' ? 5 : 0;
        case 4: return (value[3] == 'T' || value.substr(0, 4) == "WITA") ? 4 : 0;
        case 3: return 3;
        default: return 0;
    }
}

// Go's parseNanoseconds: value starts with the separator, n bytes in all.
bool parse_nanoseconds(std::string_view value, std::size_t n, std::int32_t& ns) {
    if (value.empty() || (value[0] != '.' && value[0] != ',')) return false;
    if (n > 10) n = 10;
    std::int64_t x = 0;
    for (std::size_t i = 1; i < n; ++i) {
        if (!is_digit_at(value, i)) return false;
        x = x * 10 + (value[i] - '0');
    }
    for (std::size_t i = n; i < 10; ++i) x *= 10;
    ns = static_cast<std::int32_t>(x);
    return true;
}

}  // namespace

std::optional<Time> parse(std::string_view layout_in, std::string_view value_in, std::string& error) {
    std::string_view layout = layout_in, value = value_in;
    auto bad = [&](std::string_view layout_elem, std::string_view value_elem) {
        error = "parsing time " + quote(value_in) + " as " + quote(layout_in) + ": cannot parse " + quote(value_elem) +
                " as " + quote(layout_elem);
        return std::nullopt;
    };
    auto range_error = [&](std::string_view what) {
        error = "parsing time " + quote(value_in) + ": " + std::string(what) + " out of range";
        return std::nullopt;
    };
    bool pm_set = false, am_set = false;
    std::int64_t year = 0;
    int month = -1, day = -1, yday = -1, hour = 0, minute = 0, second = 0;
    std::int32_t nsec = 0;
    bool utc_zone = false;
    int zone_offset = -1;
    bool has_offset = false;
    std::string zone_name;

    while (true) {
        Chunk c = next_chunk(layout);
        std::string_view value_before = value;
        if (!skip(value, c.prefix)) return bad(c.prefix, value_before);
        if (c.std == Std::None) {
            if (!value.empty()) {
                error = "parsing time " + quote(value_in) + ": extra text: " + quote(value);
                return std::nullopt;
            }
            break;
        }
        layout = c.suffix;
        std::string_view hold = value;
        const char* range = nullptr;
        bool ok = true;
        switch (c.std) {
            case Std::Year: {
                if (value.size() < 2 || !is_digit_at(value, 0) || !is_digit_at(value, 1)) {
                    ok = false;
                    break;
                }
                int y = (value[0] - '0') * 10 + (value[1] - '0');
                value.remove_prefix(2);
                year = y >= 69 ? 1900 + y : 2000 + y;
                break;
            }
            case Std::LongYear: {
                if (value.size() < 4 || !is_digit_at(value, 0)) {
                    ok = false;
                    break;
                }
                std::int64_t y = 0;
                for (int i = 0; i < 4 && ok; ++i) {
                    if (!is_digit_at(value, static_cast<std::size_t>(i))) ok = false;
                    else y = y * 10 + (value[static_cast<std::size_t>(i)] - '0');
                }
                if (ok) {
                    year = y;
                    value.remove_prefix(4);
                }
                break;
            }
            case Std::Month:
            case Std::LongMonth: {
                int idx = 0;
                ok = lookup_name(value, 0, c.std == Std::LongMonth, true, idx);
                if (ok) month = idx + 1;
                break;
            }
            case Std::NumMonth:
            case Std::ZeroMonth:
                ok = getnum(value, c.std == Std::ZeroMonth, month);
                if (ok && (month <= 0 || month > 12)) range = "month";
                break;
            case Std::WeekDay:
            case Std::LongWeekDay: {
                int idx = 0;
                ok = lookup_name(value, 0, c.std == Std::LongWeekDay, false, idx);
                break;
            }
            case Std::Day:
            case Std::UnderDay:
            case Std::ZeroDay:
                if (c.std == Std::UnderDay && !value.empty() && value[0] == ' ') value.remove_prefix(1);
                ok = getnum(value, c.std == Std::ZeroDay, day);
                break;
            case Std::UnderYearDay:
            case Std::ZeroYearDay:
                for (int i = 0; i < 2 && c.std == Std::UnderYearDay && !value.empty() && value[0] == ' '; ++i)
                    value.remove_prefix(1);
                ok = getnum3(value, c.std == Std::ZeroYearDay, yday);
                if (ok && (yday < 1 || yday > 366)) range = "day-of-year";
                break;
            case Std::Hour:
                ok = getnum(value, false, hour);
                if (ok && (hour < 0 || hour >= 24)) range = "hour";
                break;
            case Std::Hour12:
            case Std::ZeroHour12:
                ok = getnum(value, c.std == Std::ZeroHour12, hour);
                if (ok && (hour < 0 || hour > 12)) range = "hour";
                break;
            case Std::Minute:
            case Std::ZeroMinute:
                ok = getnum(value, c.std == Std::ZeroMinute, minute);
                if (ok && (minute < 0 || minute >= 60)) range = "minute";
                break;
            case Std::Second:
            case Std::ZeroSecond: {
                ok = getnum(value, c.std == Std::ZeroSecond, second);
                if (!ok) break;
                if (second < 0 || second >= 60) {
                    range = "second";
                    break;
                }
                // A fractional second in the value that the layout does not spell out.
                if (value.size() >= 2 && (value[0] == '.' || value[0] == ',') && is_digit_at(value, 1)) {
                    Chunk next = next_chunk(layout);
                    if (next.std == Std::FracSecond0 || next.std == Std::FracSecond9) break;
                    std::size_t n = 2;
                    while (n < value.size() && is_digit_at(value, n)) ++n;
                    ok = parse_nanoseconds(value, n, nsec);
                    value.remove_prefix(n);
                }
                break;
            }
            case Std::PM:
                if (value.size() < 2) {
                    ok = false;
                    break;
                }
                if (value.substr(0, 2) == "PM") pm_set = true;
                else if (value.substr(0, 2) == "AM") am_set = true;
                else ok = false;
                value.remove_prefix(2);
                break;
            case Std::pm:
                if (value.size() < 2) {
                    ok = false;
                    break;
                }
                if (value.substr(0, 2) == "pm") pm_set = true;
                else if (value.substr(0, 2) == "am") am_set = true;
                else ok = false;
                value.remove_prefix(2);
                break;
            case Std::ISO8601TZ:
            case Std::ISO8601ColonTZ:
            case Std::ISO8601SecondsTZ:
            case Std::ISO8601ShortTZ:
            case Std::ISO8601ColonSecondsTZ:
                if (!value.empty() && value[0] == 'Z') {
                    value.remove_prefix(1);
                    utc_zone = true;
                    break;
                }
                [[fallthrough]];
            case Std::NumTZ:
            case Std::NumShortTZ:
            case Std::NumColonTZ:
            case Std::NumSecondsTz:
            case Std::NumColonSecondsTZ: {
                std::string_view sign, hh, mm = "00", ss = "00";
                if (c.std == Std::ISO8601ColonTZ || c.std == Std::NumColonTZ) {
                    if (value.size() < 6 || value[3] != ':') {
                        ok = false;
                        break;
                    }
                    sign = value.substr(0, 1);
                    hh = value.substr(1, 2);
                    mm = value.substr(4, 2);
                    value.remove_prefix(6);
                } else if (c.std == Std::NumShortTZ || c.std == Std::ISO8601ShortTZ) {
                    if (value.size() < 3) {
                        ok = false;
                        break;
                    }
                    sign = value.substr(0, 1);
                    hh = value.substr(1, 2);
                    value.remove_prefix(3);
                } else if (c.std == Std::ISO8601ColonSecondsTZ || c.std == Std::NumColonSecondsTZ) {
                    if (value.size() < 9 || value[3] != ':' || value[6] != ':') {
                        ok = false;
                        break;
                    }
                    sign = value.substr(0, 1);
                    hh = value.substr(1, 2);
                    mm = value.substr(4, 2);
                    ss = value.substr(7, 2);
                    value.remove_prefix(9);
                } else if (c.std == Std::ISO8601SecondsTZ || c.std == Std::NumSecondsTz) {
                    if (value.size() < 7) {
                        ok = false;
                        break;
                    }
                    sign = value.substr(0, 1);
                    hh = value.substr(1, 2);
                    mm = value.substr(3, 2);
                    ss = value.substr(5, 2);
                    value.remove_prefix(7);
                } else {
                    if (value.size() < 5) {
                        ok = false;
                        break;
                    }
                    sign = value.substr(0, 1);
                    hh = value.substr(1, 2);
                    mm = value.substr(3, 2);
                    value.remove_prefix(5);
                }
                int h = 0, m = 0, s = 0;
                ok = getnum(hh, true, h) && getnum(mm, true, m) && getnum(ss, true, s);
                if (!ok) break;
                if (h > 24) range = "time zone offset hour";
                if (m > 60) range = "time zone offset minute";
                if (s > 60) range = "time zone offset second";
                zone_offset = (h * 60 + m) * 60 + s;
                has_offset = true;
                if (sign[0] == '-') zone_offset = -zone_offset;
                else if (sign[0] != '+') ok = false;
                break;
            }
            case Std::TZ: {
                if (value.size() >= 3 && value.substr(0, 3) == "UTC") {
                    utc_zone = true;
                    value.remove_prefix(3);
                    break;
                }
                std::size_t n = time_zone_length(value);
                if (n == 0) {
                    ok = false;
                    break;
                }
                zone_name = std::string(value.substr(0, n));
                value.remove_prefix(n);
                break;
            }
            case Std::FracSecond0: {
                std::size_t ndigit = 1 + static_cast<std::size_t>(c.frac_digits);
                if (value.size() < ndigit) {
                    ok = false;
                    break;
                }
                ok = parse_nanoseconds(value, ndigit, nsec);
                value.remove_prefix(ndigit);
                break;
            }
            case Std::FracSecond9: {
                if (value.size() < 2 || (value[0] != '.' && value[0] != ',') || !is_digit_at(value, 1)) break;
                std::size_t i = 0;
                while (i + 1 < value.size() && is_digit_at(value, i + 1)) ++i;
                ok = parse_nanoseconds(value, 1 + i, nsec);
                value.remove_prefix(1 + i);
                break;
            }
            case Std::None: break;
        }
        if (range) return range_error(range);
        if (!ok) return bad(c.std_text, hold);
    }
    if (pm_set && hour < 12) hour += 12;
    else if (am_set && hour == 12) hour = 0;

    if (yday >= 0) {
        int d = 0, m = 0;
        if (civil::is_leap(year)) {
            if (yday == 31 + 29) {
                m = 2;
                d = 29;
            } else if (yday > 31 + 29) yday--;
        }
        if (m == 0) {
            if (yday > 365) return range_error("day-of-year");
            m = 1;
            int remaining = yday;
            while (m < 12 && remaining > civil::days_in_month(2001, m)) remaining -= civil::days_in_month(2001, m++);
            d = remaining;
        }
        if (month >= 0 && month != m) return range_error("day-of-year");
        month = m;
        if (day >= 0 && day != d) return range_error("day-of-year");
        day = d;
    } else {
        if (month < 0) month = 1;
        if (day < 0) day = 1;
    }
    if (day < 1 || day > civil::days_in_month(year, month)) return range_error("day");

    Time t;
    t.sec = civil::days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second;
    t.nsec = nsec;
    if (utc_zone) return t;
    if (has_offset) {
        t.sec -= zone_offset;
        t.offset = {zone_offset, ""};
        return t;
    }
    if (!zone_name.empty()) {
        int offset = 0;
        // "GMT+3": the hours after GMT are the offset.
        if (zone_name.size() > 3 && zone_name.substr(0, 3) == "GMT") offset = std::stoi(zone_name.substr(3)) * 3600;
        t.sec -= offset;
        t.offset = {offset, zone_name};
    }
    return t;
}

std::optional<std::int64_t> parse_duration(std::string_view s, std::string& error, DurationUnits units) {
    const std::string orig(s);
    auto invalid = [&] {
        error = "time: invalid duration " + quote(orig);
        return std::nullopt;
    };
    constexpr std::uint64_t kLimit = std::uint64_t(1) << 63;
    std::uint64_t d = 0;
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    if (s == "0") return 0;
    if (s.empty()) return invalid();
    while (!s.empty()) {
        std::uint64_t v = 0, f = 0;
        double scale = 1;
        if (!(s[0] == '.' || (s[0] >= '0' && s[0] <= '9'))) return invalid();
        std::size_t before = s.size();
        while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
            if (v > kLimit / 10) return invalid();
            v = v * 10 + static_cast<std::uint64_t>(s[0] - '0');
            if (v > kLimit) return invalid();
            s.remove_prefix(1);
        }
        bool pre = before != s.size();
        bool post = false;
        if (!s.empty() && s[0] == '.') {
            s.remove_prefix(1);
            std::size_t at = s.size();
            bool overflow = false;
            while (!s.empty() && s[0] >= '0' && s[0] <= '9') {
                auto digit = static_cast<std::uint64_t>(s[0] - '0');
                s.remove_prefix(1);
                if (overflow) continue;
                if (f > (kLimit - 1) / 10) {
                    overflow = true;
                    continue;
                }
                std::uint64_t y = f * 10 + digit;
                if (y > kLimit) {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10;
            }
            post = at != s.size();
        }
        if (!pre && !post) return invalid();
        std::size_t i = 0;
        while (i < s.size() && s[i] != '.' && !(s[i] >= '0' && s[i] <= '9')) ++i;
        if (i == 0) {
            error = "time: missing unit in duration " + quote(orig);
            return std::nullopt;
        }
        std::string_view u = s.substr(0, i);
        s.remove_prefix(i);
        std::uint64_t unit = 0;
        constexpr std::uint64_t kHour = 3'600'000'000'000ULL;
        if (u == "ns") unit = 1;
        else if (u == "us" || u == "\xC2\xB5s" || u == "\xCE\xBCs") unit = 1'000;
        else if (u == "ms") unit = 1'000'000;
        else if (u == "s") unit = 1'000'000'000;
        else if (u == "m") unit = 60'000'000'000ULL;
        else if (u == "h") unit = kHour;
        else if (units == DurationUnits::GoAndDays && u == "d") unit = 24 * kHour;
        else if (units == DurationUnits::GoAndDays && u == "w") unit = 7 * 24 * kHour;
        else if (units == DurationUnits::GoAndDays && u == "y") unit = 365 * 24 * kHour;
        else {
            error = "time: unknown unit " + quote(u) + " in duration " + quote(orig);
            return std::nullopt;
        }
        if (v > kLimit / unit) return invalid();
        v *= unit;
        if (f > 0) {
            v += static_cast<std::uint64_t>(static_cast<double>(f) * (static_cast<double>(unit) / scale));
            if (v > kLimit) return invalid();
        }
        d += v;
        if (d > kLimit) return invalid();
    }
    if (neg) return static_cast<std::int64_t>(0 - d);
    if (d > kLimit - 1) return invalid();
    return static_cast<std::int64_t>(d);
}

std::optional<std::chrono::nanoseconds> parse_flag_duration(std::string_view s) {
    std::string error;
    auto ns = parse_duration(s, error, DurationUnits::Go);
    if (!ns) return std::nullopt;
    return std::chrono::nanoseconds(*ns);
}

}  // namespace gavel::stdlib::go_time
