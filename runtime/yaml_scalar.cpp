#include "runtime/yaml_scalar.hpp"

#include "runtime/decimal.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace gavel::runtime {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

std::optional<bool> bool_word(std::string_view s) {
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

// Go's strconv.ParseInt(s, 0, 64) / ParseUint: an optional sign (ParseInt
// only), a 0x, 0o, 0b or 0 (octal) prefix, digits of that base.
std::optional<Number> go_integer(std::string_view s) {
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
    if (!neg) {
        if (sign && v > static_cast<std::uint64_t>(INT64_MAX))
            return std::nullopt;  // ParseInt's range; ParseUint takes no sign
        return Number::from_uint(v);
    }
    if (v > static_cast<std::uint64_t>(INT64_MAX) + 1) return std::nullopt;
    return Number::from_int(v == static_cast<std::uint64_t>(INT64_MAX) + 1 ? INT64_MIN : -static_cast<std::int64_t>(v));
}

// A float64 as Go's encoding/json writes it: shortest round trip, fixed
// notation between 1e-6 and 1e21, else exponent notation without a leading
// zero in a negative exponent (1e-7, 1e+21).
std::string go_json_float(double f) {
    std::array<char, 64> buf{};
    double a = std::fabs(f);
    bool exp = a != 0 && (a < 1e-6 || a >= 1e21);
    if (!exp && a != 0) {
        // The shortest digits, then zeros: 2^64 is 18446744073709552000 (Go's 'f' with precision
        // -1), where a fixed to_chars writes the double's exact 18446744073709551616.
        Decimal d = Decimal::of_double(f);
        auto n = static_cast<std::int64_t>(d.digits.size());
        std::string out = d.neg ? "-" : "";
        if (d.exp <= 0) out += "0." + std::string(static_cast<std::size_t>(-d.exp), '0') + d.digits;
        else if (d.exp >= n) out += d.digits + std::string(static_cast<std::size_t>(d.exp - n), '0');
        else
            out += d.digits.substr(0, static_cast<std::size_t>(d.exp)) + "." +
                   d.digits.substr(static_cast<std::size_t>(d.exp));
        return out;
    }
    auto r = std::to_chars(buf.data(), buf.data() + buf.size(), f,
                           exp ? std::chars_format::scientific : std::chars_format::fixed);
    std::string out(buf.data(), r.ptr);
    if (exp) {
        std::size_t n = out.size();
        if (n >= 4 && out[n - 4] == 'e' && out[n - 3] == '-' && out[n - 2] == '0') out.erase(n - 2, 1);
    }
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

}  // namespace

YamlScalar resolve_plain_yaml_scalar(std::string_view s) {
    if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return {Value(), {}};
    char c = s[0];
    bool digit_or_sign = digit(c) || c == '+' || c == '-';
    // go-yaml looks a scalar up only when its first character could start one.
    if (!digit_or_sign && c != '.' && std::string_view("yYnNtTfFoO").find(c) == std::string_view::npos)
        return {Value::string(s), {}};
    if (auto b = bool_word(s)) return {Value::boolean(*b), {}};
    for (std::string_view nan : {".nan", ".NaN", ".NAN"})
        if (s == nan) return {Value(), "json: unsupported value: NaN"};
    for (std::string_view inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
        if (s == inf) return {Value(), "json: unsupported value: +Inf"};
    for (std::string_view inf : {"-.inf", "-.Inf", "-.INF"})
        if (s == inf) return {Value(), "json: unsupported value: -Inf"};
    if (c == '.') {
        if (auto d = go_float(s)) return {Value::number(Number::parse(go_json_float(*d)).value), {}};
        return {Value::string(s), {}};
    }
    if (!digit_or_sign) return {Value::string(s), {}};
    std::string plain;
    for (char ch : s)
        if (ch != '_') plain.push_back(ch);
    if (auto n = go_integer(plain)) return {Value::number(std::move(*n)), {}};
    if (yaml_style_float(plain))
        if (auto d = go_float(plain); d && std::isfinite(*d))
            return {Value::number(Number::parse(go_json_float(*d)).value), {}};
    return {Value::string(s), {}};
}

YamlScalar resolve_plain_yaml_scalar(std::string_view s, YamlTyping typing) {
    if (typing == YamlTyping::GoYamlV3) {
        bool yaml11_word =
            bool_word(s) && s != "true" && s != "True" && s != "TRUE" && s != "false" && s != "False" && s != "FALSE";
        if (yaml11_word) return {Value::string(s), {}};
    }
    return resolve_plain_yaml_scalar(s);
}

std::string yaml_key_text(std::string_view s) {
    if (s.empty()) return std::string(s);
    if (auto b = bool_word(s)) return *b ? "true" : "false";
    char c = s[0];
    if (digit(c) || c == '+' || c == '-') {
        std::string plain;
        for (char ch : s)
            if (ch != '_') plain.push_back(ch);
        if (auto n = go_integer(plain)) return n->to_string();
    }
    return std::string(s);
}

}  // namespace gavel::runtime
