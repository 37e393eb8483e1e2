// Exact decimal numbers: the value of a Rego number as OPA sees it. OPA keeps every number as
// its decimal text (json.Number) and compares two numbers as exact rationals of their texts, so
// 0.30000000000000001 != 0.3 and 0.1 + 0.2 == 0.3 (the sum prints "0.3"; see big_float.hpp).
// Number uses Decimal wherever a value is neither an int64 nor a double's shortest text.
#pragma once

#include "runtime/bigint.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gavel::runtime {

// value = (neg ? -1 : 1) * 0.DIGITS * 10^exp; `digits` has no leading or trailing zeros and is
// empty for zero (whose neg and exp are false and 0).
struct Decimal {
    bool neg = false;
    std::string digits;
    std::int64_t exp = 0;

    bool is_zero() const noexcept { return digits.empty(); }
    bool is_integral() const noexcept { return digits.empty() || exp >= static_cast<std::int64_t>(digits.size()); }
    int sign() const noexcept { return digits.empty() ? 0 : (neg ? -1 : 1); }

    static Decimal of_int(std::int64_t v);
    static Decimal of_big(const BigInt& v);
    // The shortest digits that round-trip `d` (finite) to the same double.
    static Decimal of_double(double d);
    // Digits of a decimal integer (no sign); leading zeros allowed.
    static Decimal of_digits(bool neg, std::string_view digits, std::int64_t exp_shift = 0);
    // JSON number syntax: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; nullopt when it is not.
    // An exponent beyond +-10^18 is taken as about 10^18 (1e99999999999999999999 stays a number).
    static std::optional<Decimal> parse(std::string_view text);

    // The exact integer; nullopt when not integral or when it has more than max_digits digits.
    std::optional<BigInt> to_big_int(std::int64_t max_digits) const;
    // The nearest double (may be +-inf or 0 when out of range).
    double to_double() const;

    // Text as Go's strconv/big 'g' format with shortest digits writes it (what OPA prints for a
    // non-integral result): %e layout ("1e-05", "1.2345675e+06") when the decimal exponent is
    // < -4 or >= 6 (with at least two exponent digits), plain otherwise ("0.1", "66.66667").
    std::string format_g() const;
    // Text of an integral value in plain digits, padded with zeros ("1000000000000000000000").
    std::string format_integer() const;
};

int compare(const Decimal& a, const Decimal& b) noexcept;
std::uint64_t hash(const Decimal& d) noexcept;

// A number's exact value, and the canonical number of a value (see number.hpp).
Decimal to_decimal(const Number& n);
Number number_from_decimal(const Decimal& d);

}  // namespace gavel::runtime
