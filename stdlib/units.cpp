// units.parse, units.parse_bytes: "10Ki", "1.5GB", "500m" to numbers.
//
// OPA computes units.parse with exact rationals (big.Rat; the milli factor is
// the double nearest 0.001, exactly as OPA's SetFloat64 takes it) and prints
// non-integral results with 10 decimals; units.parse_bytes with 64-bit-mantissa
// binary floats (big.Float) truncated to an integer. Both are reproduced
// exactly here with big integers, so large values match OPA digit for digit.

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "runtime/bigint.hpp"
#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

using runtime::BigInt;

// Exponents beyond this many decimal places are refused rather than expanded
// into numbers of millions of digits (OPA itself stops at 6 exponent digits).
constexpr std::int64_t kMaxDecimalExponent = 1000;

// A decimal as mantissa * 10^exponent.
struct Decimal {
    BigInt mantissa;  // signed
    std::int64_t exponent = 0;
};

// Go's big.Rat/big.Float decimal syntax: [+-] digits [. digits] [(e|E) [+-] digits].
std::optional<Decimal> parse_decimal(std::string_view s) {
    Decimal d;
    std::size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    std::string digits;
    std::int64_t fraction_digits = 0;
    bool seen_dot = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            digits += c;
            if (seen_dot) ++fraction_digits;
        } else if (c == '.' && !seen_dot) {
            seen_dot = true;
        } else {
            break;
        }
    }
    if (digits.empty()) return std::nullopt;
    std::int64_t exp = 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool exp_negative = false;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
        std::size_t start = i;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
            if (exp > 100'000'000) return std::nullopt;
            exp = exp * 10 + (s[i] - '0');
        }
        if (i == start) return std::nullopt;
        if (exp_negative) exp = -exp;
    }
    if (i != s.size()) return std::nullopt;
    d.mantissa = BigInt(digits);
    if (negative) d.mantissa = -d.mantissa;
    d.exponent = exp - fraction_digits;
    return d;
}

BigInt pow10(std::int64_t n) { return boost::multiprecision::pow(BigInt(10), static_cast<unsigned>(n)); }

// OPA's extractNumAndUnit: the number is the leading run of digits, '.',
// '+', '-' and exponent markers followed by a digit or sign. False when an
// exponent has more than 6 digits.
bool split_number_and_unit(std::string_view s, std::string_view& num, std::string_view& unit) {
    auto digit = [](char c) { return c >= '0' && c <= '9'; };
    std::size_t end = s.size();
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (!digit(c) && c != '.' && c != 'e' && c != 'E' && c != '+' && c != '-') {
            end = i;
            break;
        }
        if (c == 'e' || c == 'E') {
            if (i + 1 == s.size() || (!digit(s[i + 1]) && s[i + 1] != '+' && s[i + 1] != '-')) {
                end = i;
                break;
            }
            if (s[i + 1] == '+' || s[i + 1] == '-') ++i;
            std::size_t exp_end = i + 1;
            while (exp_end < s.size() && digit(s[exp_end])) ++exp_end;
            if (exp_end - (i + 1) > 6) return false;
        }
    }
    num = s.substr(0, end);
    unit = s.substr(end);
    return true;
}

std::string without_quotes(std::string_view s) {
    std::string out;
    for (char c : s)
        if (c != '"') out += c;
    return out;
}

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The multiplier of a unit as numerator / 2^shift (shift > 0 only for milli).
struct Factor {
    BigInt numerator;
    unsigned shift = 0;
};

std::optional<Factor> si_or_binary_factor(std::string_view unit) {
    static constexpr std::pair<std::string_view, int> kPowers[] = {{"k", 1}, {"m", 2}, {"g", 3},
                                                                   {"t", 4}, {"p", 5}, {"e", 6}};
    if (unit.empty()) return Factor{1};
    for (auto [prefix, power] : kPowers) {
        if (unit == prefix) return Factor{pow10(3 * power)};
        if (unit.size() == 2 && unit[0] == prefix[0] && unit[1] == 'i') return Factor{BigInt(1) << (10 * power)};
    }
    return std::nullopt;
}

// big.Rat.FloatString(10): rounded half away from zero, sign kept for -0.
std::string rational_to_fixed10(const BigInt& num, const BigInt& den) {
    BigInt abs_num = num < 0 ? BigInt(-num) : num;
    BigInt scaled = abs_num * pow10(10);
    BigInt q = scaled / den, rem = scaled % den;
    if (rem * 2 >= den) ++q;
    std::string digits = q.str();
    if (digits.size() < 11) digits.insert(0, 11 - digits.size(), '0');
    std::string out = num < 0 ? "-" : "";
    out += digits.substr(0, digits.size() - 10);
    out += '.';
    out += digits.substr(digits.size() - 10);
    return out;
}

// OPA's own errors name the builtin, and its evaluator names it again: "units.parse: units.parse: ...".
BuiltinResult units_error(std::string_view message) {
    return BuiltinResult::error("units.parse: " + std::string(message));
}
BuiltinResult bytes_error(std::string_view message) {
    return BuiltinResult::error("units.parse_bytes: " + std::string(message));
}

BuiltinResult units_parse(std::string_view raw) {
    std::string s = without_quotes(raw);
    if (s.find(' ') != std::string::npos) return units_error("spaces not allowed in resource strings");
    std::string_view num, unit_view;
    if (!split_number_and_unit(s, num, unit_view)) return units_error("exponent too large");
    if (num.empty()) return units_error("no amount provided");
    // Only letters after the first are case-insensitive: 'm' (milli) vs 'M' (mega).
    std::string unit(unit_view);
    if (unit.size() > 1) unit = unit.substr(0, 1) + lower(unit.substr(1));

    Factor factor;
    if (unit == "m") {
        int exp2 = 0;
        double frac = std::frexp(0.001, &exp2);  // 0.001 = frac * 2^exp2, frac in [0.5, 1)
        factor.numerator = BigInt(static_cast<std::int64_t>(std::ldexp(frac, 53)));
        factor.shift = static_cast<unsigned>(53 - exp2);
    } else if (unit == "M") {
        factor.numerator = pow10(6);
    } else if (unit.size() <= 2 && (unit.empty() || unit[0] != 'm')) {
        auto f = si_or_binary_factor(lower(unit));
        if (!f) return units_error(fmt::format("unit {} not recognized", unit));
        factor = *f;
    } else if (unit == "mi" || unit == "Mi") {
        factor.numerator = BigInt(1) << 20;
    } else {
        return units_error(fmt::format("unit {} not recognized", unit));
    }

    auto d = parse_decimal(num);
    if (!d) return units_error("could not parse amount to a number");
    if (d->mantissa == 0) return BuiltinResult::of(Value::integer(0));
    if (d->exponent > kMaxDecimalExponent) return units_error("exponent too large");
    auto digits = static_cast<std::int64_t>(d->mantissa.str().size());
    if (d->exponent < -(kMaxDecimalExponent + digits))  // far below 1e-10: rounds to zero
        return BuiltinResult::of(Value::integer(0));

    BigInt numerator = d->mantissa * factor.numerator;
    BigInt denominator = BigInt(1) << factor.shift;
    if (d->exponent >= 0) numerator *= pow10(d->exponent);
    else denominator *= pow10(-d->exponent);
    if (numerator % denominator == 0)
        return BuiltinResult::of(Value::number(runtime::number_from_big(numerator / denominator)));
    auto parsed = runtime::Number::parse(rational_to_fixed10(numerator, denominator));
    if (!parsed) return units_error("could not parse amount to a number");
    return BuiltinResult::of(Value::number(parsed.value));
}

std::size_t bit_length(const BigInt& x) { return x == 0 ? 0 : boost::multiprecision::msb(x) + 1; }

// Rounds the positive rational num/den to a 64-bit mantissa (ties to even):
// returns m and e with value ~= m * 2^e.
std::pair<BigInt, std::int64_t> round_to_float64bits(const BigInt& num, const BigInt& den) {
    std::int64_t shift = 64 - (static_cast<std::int64_t>(bit_length(num)) - static_cast<std::int64_t>(bit_length(den)));
    auto divide = [&](std::int64_t s, BigInt& rem) {
        BigInt n = s >= 0 ? BigInt(num << static_cast<unsigned>(s)) : num;
        BigInt d = s >= 0 ? den : BigInt(den << static_cast<unsigned>(-s));
        BigInt q = n / d;
        rem = (n % d) * 2;
        int c = rem.compare(d);
        return std::pair{q, c};
    };
    BigInt rem;
    auto [q, cmp] = divide(shift, rem);
    while (bit_length(q) > 64) std::tie(q, cmp) = divide(--shift, rem);
    while (bit_length(q) < 64) std::tie(q, cmp) = divide(++shift, rem);
    if (cmp > 0 || (cmp == 0 && (q & 1) != 0)) ++q;
    return {q, -shift};
}

BuiltinResult units_parse_bytes(std::string_view raw) {
    std::string s = lower(without_quotes(raw));
    if (s.find(' ') != std::string::npos) return bytes_error("spaces not allowed in resource strings");
    std::string_view num, unit;
    if (!split_number_and_unit(s, num, unit)) return bytes_error("exponent too large");
    if (num.empty()) return bytes_error("no byte amount provided");
    std::string_view unit_prefix = unit;
    if (unit.size() == 2 && unit[1] == 'b') unit_prefix = unit.substr(0, 1);               // kb
    else if (unit.size() == 3 && unit.substr(1) == "ib") unit_prefix = unit.substr(0, 2);  // kib
    auto factor = si_or_binary_factor(unit_prefix);
    if (!factor || unit == "b" || unit == "ib") return bytes_error(fmt::format("byte unit {} not recognized", unit));

    auto d = parse_decimal(num);
    if (!d) return bytes_error("could not parse byte amount to a number");
    if (d->mantissa == 0) return BuiltinResult::of(Value::integer(0));
    if (d->exponent > kMaxDecimalExponent) return bytes_error("exponent too large");
    auto digits = static_cast<std::int64_t>(d->mantissa.str().size());
    if (d->exponent < -digits) {
        // |value| < 1 and the factor is at most 2^60: the product truncates to
        // 0 unless the decimal is large enough to matter.
        if (d->exponent < -(digits + 40)) return BuiltinResult::of(Value::integer(0));
    }
    bool negative = d->mantissa < 0;
    BigInt mag = negative ? BigInt(-d->mantissa) : d->mantissa;
    BigInt num_r = mag, den_r = 1;
    if (d->exponent >= 0) num_r *= pow10(d->exponent);
    else den_r = pow10(-d->exponent);

    // big.Float: the decimal rounded to 64 bits, times the factor rounded to 64 bits.
    auto [m1, e1] = round_to_float64bits(num_r, den_r);
    BigInt product = m1 * factor->numerator;
    std::int64_t e2 = e1;
    std::size_t bits = bit_length(product);
    if (bits > 64) {
        auto drop = static_cast<unsigned>(bits - 64);
        BigInt low = product & ((BigInt(1) << drop) - 1);
        BigInt half = BigInt(1) << (drop - 1);
        product >>= drop;
        if (low > half || (low == half && (product & 1) != 0)) ++product;
        e2 += drop;
    }
    BigInt total =
        e2 >= 0 ? BigInt(product << static_cast<unsigned>(e2)) : BigInt(product >> static_cast<unsigned>(-e2));
    if (negative) total = -total;
    return BuiltinResult::of(Value::number(runtime::number_from_big(total)));
}

}  // namespace

void register_units(Registry& r) {
    declare(r, "units.parse", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        try {
            return units_parse(a[0].as_string());
        } catch (const std::exception& e) {
            return BuiltinResult::error(e.what());
        }
    });
    declare(r, "units.parse_bytes", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        try {
            return units_parse_bytes(a[0].as_string());
        } catch (const std::exception& e) {
            return BuiltinResult::error(e.what());
        }
    });
}

}  // namespace gavel::stdlib
