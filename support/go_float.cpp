#include "support/go_float.hpp"

#include <charconv>
#include <cmath>
#include <string_view>

namespace gavel::support {

namespace {

void append_exponent(std::string& out, char e, int exp, std::size_t min_digits) {
    out += e;
    out += exp < 0 ? '-' : '+';
    std::string d = std::to_string(exp < 0 ? -exp : exp);
    if (d.size() < min_digits) d.insert(0, min_digits - d.size(), '0');
    out += d;
}

// The digits in plain notation: 0.000DIGITS, DIGITS000 or DIG.ITS.
void append_plain(std::string& out, const ShortestDigits& s) {
    const auto n = static_cast<int>(s.digits.size());
    if (s.point <= 0) {
        out += "0.";
        out.append(static_cast<std::size_t>(-s.point), '0');
        out += s.digits;
    } else if (s.point >= n) {
        out += s.digits;
        out.append(static_cast<std::size_t>(s.point - n), '0');
    } else {
        out.append(s.digits, 0, static_cast<std::size_t>(s.point));
        out += '.';
        out.append(s.digits, static_cast<std::size_t>(s.point));
    }
}

// D.IGITSe±XX with at least `min_exp_digits` exponent digits.
void append_exponent_form(std::string& out, const ShortestDigits& s, char e, std::size_t min_exp_digits) {
    out += s.digits[0];
    if (s.digits.size() > 1) {
        out += '.';
        out.append(s.digits, 1);
    }
    append_exponent(out, e, s.point - 1, min_exp_digits);
}

}  // namespace

ShortestDigits shortest_digits(double v) {
    ShortestDigits out;
    if (v == 0 || !std::isfinite(v)) return out;
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, std::fabs(v), std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
    auto e = s.find('e');
    for (char c : s.substr(0, e))
        if (c != '.') out.digits += c;
    while (!out.digits.empty() && out.digits.back() == '0') out.digits.pop_back();
    std::string_view exp = s.substr(e + 1);
    if (!exp.empty() && exp[0] == '+') exp.remove_prefix(1);
    int x = 0;
    std::from_chars(exp.data(), exp.data() + exp.size(), x);
    out.point = x + 1;
    return out;
}

std::string go_format_g(double v, bool upper) {
    std::string out = std::signbit(v) ? "-" : "";
    ShortestDigits s = shortest_digits(v);
    if (s.digits.empty()) return out + "0";
    const int exp = s.point - 1;
    // Shortest 'g' decides with a precision of 6 (strconv's eprec).
    if (exp < -4 || exp >= 6) append_exponent_form(out, s, upper ? 'E' : 'e', 2);
    else append_plain(out, s);
    return out;
}

std::string go_json_float(double v) {
    std::string out = std::signbit(v) ? "-" : "";
    ShortestDigits s = shortest_digits(v);
    if (s.digits.empty()) return out + "0";
    const double a = std::fabs(v);
    if (a < 1e-6 || a >= 1e21) append_exponent_form(out, s, 'e', 1);
    else append_plain(out, s);
    return out;
}

}  // namespace gavel::support
