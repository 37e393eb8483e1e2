#include "lang/yaml_plain_scalar.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>

#include "support/go_float.hpp"

namespace gavel::lang::yaml {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

bool is_null_word(std::string_view s) { return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL"; }

bool is_v3_bool_word(std::string_view s) {
    return s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE";
}

// go-yaml v2's booleans (YAML 1.1); v3 keeps only true/false of them.
std::optional<bool> v2_bool_word(std::string_view s) {
    static constexpr std::array<std::string_view, 11> yes{"y",    "Y",    "yes", "Yes", "YES", "true",
                                                          "True", "TRUE", "on",  "On",  "ON"};
    static constexpr std::array<std::string_view, 11> no{"n",     "N",     "no",  "No",  "NO", "false",
                                                         "False", "FALSE", "off", "Off", "OFF"};
    for (auto w : yes)
        if (s == w) return true;
    for (auto w : no)
        if (s == w) return false;
    return std::nullopt;
}

// Go's strconv.ParseInt(s, 0, 64), else ParseUint(s, 0, 64): an optional sign (ParseInt only), a
// 0x, 0o, 0b or 0 (octal) prefix, digits of that base. The value's decimal text.
std::optional<std::string> go_integer(std::string_view s) {
    bool neg = false, sign = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        neg = s[0] == '-';
        sign = true;
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 1 && s[0] == '0') {
        char p = static_cast<char>(s[1] | 0x20);
        if (p == 'x') base = 16, s.remove_prefix(2);
        else if (p == 'o') base = 8, s.remove_prefix(2);
        else if (p == 'b') base = 2, s.remove_prefix(2);
        else base = 8, s.remove_prefix(1);
    }
    if (s.empty()) return std::nullopt;
    std::uint64_t v = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    constexpr auto int64_max = static_cast<std::uint64_t>(INT64_MAX);
    if (!neg) {
        if (sign && v > int64_max) return std::nullopt;  // ParseInt's range; ParseUint takes no sign
        return std::to_string(v);
    }
    if (v > int64_max + 1) return std::nullopt;
    if (v == 0) return std::string("0");
    std::string out(1, '-');  // not "-" + to_string: GCC 12 warns (-Wrestrict) on that concatenation
    out += std::to_string(v);
    return out;
}

// go-yaml's yamlStyleFloat: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool yaml_style_float(std::string_view s) {
    std::size_t i = 0, n = s.size();
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i < n && s[i] == '.') {
        std::size_t b = ++i;
        while (i < n && digit(s[i])) ++i;
        if (i == b) return false;
    } else {
        std::size_t b = i;
        while (i < n && digit(s[i])) ++i;
        if (i == b) return false;
        if (i < n && s[i] == '.') {
            ++i;
            while (i < n && digit(s[i])) ++i;
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
        std::size_t b = i;
        while (i < n && digit(s[i])) ++i;
        if (i == b) return false;
    }
    return i == n;
}

std::optional<double> go_float(std::string_view s) {
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    double d = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), d);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return d;
}

// Reads 1 or 2 digits (Go's getnum for a non-zero-padded layout element) at `i`.
std::optional<int> one_or_two_digits(std::string_view s, std::size_t& i) {
    if (i >= s.size() || !digit(s[i])) return std::nullopt;
    int v = s[i++] - '0';
    if (i < s.size() && digit(s[i])) v = v * 10 + (s[i++] - '0');
    return v;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in(int month, int year) {
    static constexpr std::array<int, 12> days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && leap(year) ? 29 : days[static_cast<std::size_t>(month - 1)];
}

std::string two(int v) { return std::string(1, static_cast<char>('0' + v / 10)) + static_cast<char>('0' + v % 10); }

// go-yaml v3's parseTimestamp (time.Parse with "2006-1-2T15:4:5.999999999Z07:00", its
// lower-case "t" variant, "2006-1-2 15:4:5.999999999" in UTC, "2006-1-2"), then the time as
// encoding/json writes a time.Time (RFC 3339, fraction without trailing zeros, Z for UTC).
std::optional<std::string> timestamp(std::string_view s) {
    if (s.size() < 5 || !digit(s[0]) || !digit(s[1]) || !digit(s[2]) || !digit(s[3]) || s[4] != '-')
        return std::nullopt;
    const int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    std::size_t i = 5;
    auto month = one_or_two_digits(s, i);
    if (!month || i >= s.size() || s[i] != '-') return std::nullopt;
    ++i;
    auto day = one_or_two_digits(s, i);
    if (!day || *month < 1 || *month > 12 || *day < 1 || *day > days_in(*month, year)) return std::nullopt;
    std::string date = std::string(s.substr(0, 4)) + "-" + two(*month) + "-" + two(*day);
    if (i == s.size()) return date + "T00:00:00Z";
    const char sep = s[i++];
    if (sep != 'T' && sep != 't' && sep != ' ') return std::nullopt;
    auto hour = one_or_two_digits(s, i);
    if (!hour || i >= s.size() || s[i++] != ':') return std::nullopt;
    auto minute = one_or_two_digits(s, i);
    if (!minute || i >= s.size() || s[i++] != ':') return std::nullopt;
    auto second = one_or_two_digits(s, i);
    if (!second || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
    std::string fraction;
    if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && digit(s[i + 1])) {
        ++i;
        while (i < s.size() && digit(s[i])) fraction += s[i++];
        if (fraction.size() > 9) fraction.resize(9);  // nanoseconds; Go drops the rest
        while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    }
    std::string zone = "Z";
    if (sep == ' ') {
        if (i != s.size()) return std::nullopt;  // this layout has no zone: UTC
    } else if (i < s.size() && s[i] == 'Z' && i + 1 == s.size()) {
        ++i;
    } else {
        // ±hh:mm
        if (s.size() - i != 6 || (s[i] != '+' && s[i] != '-') || !digit(s[i + 1]) || !digit(s[i + 2]) ||
            s[i + 3] != ':' || !digit(s[i + 4]) || !digit(s[i + 5]))
            return std::nullopt;
        const int zh = (s[i + 1] - '0') * 10 + (s[i + 2] - '0'), zm = (s[i + 4] - '0') * 10 + (s[i + 5] - '0');
        if (zh > 24 || zm > 60) return std::nullopt;
        if (zh != 0 || zm != 0) zone = std::string(s.substr(i, 6));
    }
    return date + "T" + two(*hour) + ":" + two(*minute) + ":" + two(*second) +
           (fraction.empty() ? "" : "." + fraction) + zone;
}

PlainScalar make(PlainScalar::Kind kind, std::string text = {}) {
    PlainScalar out;
    out.kind = kind;
    out.text = std::move(text);
    return out;
}

}  // namespace

PlainScalar resolve_plain_scalar(std::string_view s, Typing typing) {
    using Kind = PlainScalar::Kind;
    const bool v3 = typing != Typing::SigsK8sYaml;
    if (is_null_word(s)) return make(Kind::Null);
    const char c = s[0];
    const bool digit_or_sign = digit(c) || c == '+' || c == '-';
    // go-yaml looks a scalar up only when its first character could start one.
    if (!digit_or_sign && c != '.' && std::string_view("yYnNtTfFoO").find(c) == std::string_view::npos)
        return make(Kind::String);
    if (auto b = v2_bool_word(s); b && (!v3 || is_v3_bool_word(s))) {
        PlainScalar out = make(Kind::Boolean);
        out.boolean = *b;
        return out;
    }
    for (std::string_view nan : {".nan", ".NaN", ".NAN"})
        if (s == nan) return make(Kind::NotFinite, "json: unsupported value: NaN");
    for (std::string_view inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
        if (s == inf) return make(Kind::NotFinite, "json: unsupported value: +Inf");
    for (std::string_view inf : {"-.inf", "-.Inf", "-.INF"})
        if (s == inf) return make(Kind::NotFinite, "json: unsupported value: -Inf");
    auto spelt = [typing](double d) {
        return make(Kind::Float,
                    typing == Typing::GoYamlV3Values ? support::go_format_g(d) : support::go_json_float(d));
    };
    if (c == '.') {
        if (auto d = go_float(s)) return spelt(*d);
        return make(Kind::String);
    }
    if (!digit_or_sign) return make(Kind::String);
    if (v3)
        if (auto t = timestamp(s)) return make(Kind::Timestamp, std::move(*t));
    std::string plain;
    for (char ch : s)
        if (ch != '_') plain.push_back(ch);
    if (auto n = go_integer(plain)) return make(Kind::Integer, std::move(*n));
    if (yaml_style_float(plain))
        if (auto d = go_float(plain); d && std::isfinite(*d)) return spelt(*d);
    return make(Kind::String);
}

std::string plain_key_text(std::string_view s) {
    if (s.empty()) return std::string(s);
    if (auto b = v2_bool_word(s)) return *b ? "true" : "false";
    const char c = s[0];
    if (digit(c) || c == '+' || c == '-') {
        std::string plain;
        for (char ch : s)
            if (ch != '_') plain.push_back(ch);
        if (auto n = go_integer(plain)) return *n;
    }
    return std::string(s);
}

std::string short_tag(std::string_view tag) {
    constexpr std::string_view prefix = "tag:yaml.org,2002:";
    if (tag.substr(0, prefix.size()) == prefix) return "!!" + std::string(tag.substr(prefix.size()));
    return std::string(tag);
}

std::string_view resolved_tag(const PlainScalar& s) {
    switch (s.kind) {
        case PlainScalar::Kind::Null: return "!!null";
        case PlainScalar::Kind::Boolean: return "!!bool";
        case PlainScalar::Kind::Integer: return "!!int";
        case PlainScalar::Kind::Float:
        case PlainScalar::Kind::NotFinite: return "!!float";
        case PlainScalar::Kind::Timestamp: return "!!timestamp";
        case PlainScalar::Kind::String: break;
    }
    return "!!str";
}

}  // namespace gavel::lang::yaml
