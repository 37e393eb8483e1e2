#include "runtime/decimal.hpp"

#include "runtime/hash.hpp"
#include "support/go_float.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace gavel::runtime {

Decimal Decimal::of_digits(bool neg, std::string_view s, std::int64_t exp_shift) {
    std::size_t lead = 0;
    while (lead < s.size() && s[lead] == '0') ++lead;
    s.remove_prefix(lead);
    if (s.empty()) return Decimal{};
    Decimal r;
    r.neg = neg;
    r.exp = static_cast<std::int64_t>(s.size()) + exp_shift;
    while (!s.empty() && s.back() == '0') s.remove_suffix(1);
    r.digits.assign(s);
    return r;
}

Decimal Decimal::of_int(std::int64_t v) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
    bool neg = !s.empty() && s[0] == '-';
    return of_digits(neg, s.substr(neg ? 1 : 0));
}

Decimal Decimal::of_big(const BigInt& v) {
    std::string s = big_decimal_text(v);
    bool neg = !s.empty() && s[0] == '-';
    return of_digits(neg, std::string_view(s).substr(neg ? 1 : 0));
}

Decimal Decimal::of_double(double d) {
    if (d == 0 || !std::isfinite(d)) return Decimal{};
    support::ShortestDigits s = support::shortest_digits(d);
    return Decimal{std::signbit(d), std::move(s.digits), s.point};
}

namespace {
constexpr std::int64_t kMaxExponentDigits = 100'000'000'000'000'000;  // 1e17
}

std::optional<Decimal> Decimal::parse(std::string_view text) {
    std::size_t p = 0, n = text.size();
    bool neg = false;
    if (p < n && text[p] == '-') {
        neg = true;
        ++p;
    }
    std::size_t int_begin = p;
    if (p >= n || text[p] < '0' || text[p] > '9') return std::nullopt;
    if (text[p] == '0') ++p;
    else
        while (p < n && text[p] >= '0' && text[p] <= '9') ++p;
    std::string_view int_digits = text.substr(int_begin, p - int_begin);
    std::string_view frac_digits;
    if (p < n && text[p] == '.') {
        std::size_t b = ++p;
        while (p < n && text[p] >= '0' && text[p] <= '9') ++p;
        if (p == b) return std::nullopt;
        frac_digits = text.substr(b, p - b);
    }
    std::int64_t exp10 = 0;
    if (p < n && (text[p] == 'e' || text[p] == 'E')) {
        ++p;
        bool eneg = false;
        if (p < n && (text[p] == '+' || text[p] == '-')) eneg = text[p++] == '-';
        std::size_t b = p;
        while (p < n && text[p] >= '0' && text[p] <= '9') {
            // Saturated: beyond it only the order of two such numbers could be off (OPA panics
            // comparing them), and no arithmetic takes them (big_float.hpp's bounds).
            if (exp10 < kMaxExponentDigits) exp10 = exp10 * 10 + (text[p] - '0');
            ++p;
        }
        if (p == b) return std::nullopt;
        if (eneg) exp10 = -exp10;
    }
    if (p != n) return std::nullopt;
    std::string all;
    all.reserve(int_digits.size() + frac_digits.size());
    all.append(int_digits);
    all.append(frac_digits);
    return of_digits(neg, all, exp10 - static_cast<std::int64_t>(frac_digits.size()));
}

std::optional<BigInt> Decimal::to_big_int(std::int64_t max_digits) const {
    if (!is_integral()) return std::nullopt;
    if (digits.empty()) return BigInt(0);
    if (exp > max_digits) return std::nullopt;
    std::string s = digits;
    s.append(static_cast<std::size_t>(exp - static_cast<std::int64_t>(digits.size())), '0');
    BigInt v(s);
    return neg ? BigInt(-v) : v;
}

double Decimal::to_double() const {
    if (digits.empty()) return 0;
    if (exp > 400) return neg ? -HUGE_VAL : HUGE_VAL;
    if (exp < -400) return neg ? -0.0 : 0.0;
    std::string s = neg ? "-0." : "0.";
    s += digits;
    s += 'e';
    s += std::to_string(exp);
    return std::strtod(s.c_str(), nullptr);
}

std::string Decimal::format_g() const {
    if (digits.empty()) return "0";
    std::string out;
    if (neg) out.push_back('-');
    std::int64_t x = exp - 1;  // exponent in d.ddd x 10^x
    if (x < -4 || x >= 6) {
        out.push_back(digits[0]);
        if (digits.size() > 1) {
            out.push_back('.');
            out.append(digits, 1);
        }
        out.push_back('e');
        out.push_back(x < 0 ? '-' : '+');
        std::int64_t ax = x < 0 ? -x : x;
        if (ax < 10) out.push_back('0');
        out += std::to_string(ax);
        return out;
    }
    if (x >= 0) {
        auto ip = static_cast<std::size_t>(x + 1);
        if (digits.size() <= ip) {
            out += digits;
            out.append(ip - digits.size(), '0');
        } else {
            out.append(digits, 0, ip);
            out.push_back('.');
            out.append(digits, ip);
        }
    } else {
        out += "0.";
        out.append(static_cast<std::size_t>(-x - 1), '0');
        out += digits;
    }
    return out;
}

std::string Decimal::format_integer() const {
    if (digits.empty()) return "0";
    std::string out;
    if (neg) out.push_back('-');
    out += digits;
    if (exp > static_cast<std::int64_t>(digits.size()))
        out.append(static_cast<std::size_t>(exp - static_cast<std::int64_t>(digits.size())), '0');
    return out;
}

int compare(const Decimal& a, const Decimal& b) noexcept {
    int sa = a.sign(), sb = b.sign();
    if (sa != sb) return sa < sb ? -1 : 1;
    if (sa == 0) return 0;
    int mag;
    if (a.exp != b.exp) mag = a.exp < b.exp ? -1 : 1;
    else {
        int c = a.digits.compare(b.digits);
        mag = c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    return sa < 0 ? -mag : mag;
}

std::uint64_t hash(const Decimal& d) noexcept {
    std::uint64_t h = hash_bytes(d.digits.data(), d.digits.size());
    return hash_mix(h ^ hash_mix(static_cast<std::uint64_t>(d.exp) * 2 + (d.neg ? 1 : 0)));
}

}  // namespace gavel::runtime
