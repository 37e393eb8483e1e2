// The binary floating point OPA computes with: Go's math/big.Float at its default precision of
// 64 mantissa bits, rounding to nearest even, with an exponent range far beyond a double's.
// OPA turns a number's decimal text into such a float (big.Float.SetString), operates
// (+ - * / abs round ceil floor sum product), and prints the result with the fewest decimal
// digits that read back to the same 64-bit float (big.Float.Text with precision -1): so
// 0.1 + 0.2 prints "0.3", -6 * 0.2 prints "-1.2" and 1 / 3 prints "0.33333333333333333334".
// BigFloat reproduces those steps exactly: the same rounding of decimal input (including Go's
// 128-bit approximation of 5^n for decimal exponents beyond 27), correctly rounded operations,
// signed zeros, and Go's shortest-digits algorithm.
#pragma once

#include "runtime/bigint.hpp"
#include "runtime/decimal.hpp"

#include <cstdint>
#include <optional>

namespace gavel::runtime {

class BigFloat {
public:
    static constexpr unsigned kPrecision = 64;  // bits of big.Float's default mantissa

    BigFloat() = default;  // +0

    // Bounds gavel keeps numbers within, so that no operation or printing takes unbounded time
    // or memory (printing costs grow with the square of the exponent): a binary exponent within
    // +-kMaxExponent (OPA's parser refuses literals beyond +-100,000), at most kMaxDigits
    // significant decimal digits read.
    static constexpr std::int64_t kMaxExponent = 1 << 17;
    static constexpr std::size_t kMaxDigits = 10000;

    // big.Float.SetString of the decimal's text; nullopt beyond the bounds above.
    static std::optional<BigFloat> from_decimal(const Decimal& d);
    static BigFloat from_int(std::int64_t v);
    static BigFloat zero(bool negative) {
        BigFloat z;
        z.neg_ = negative;
        return z;
    }

    bool is_zero() const noexcept { return mant_ == 0; }
    bool negative() const noexcept { return neg_; }  // also for -0
    bool is_int() const noexcept { return mant_ == 0 || exp_ >= 0; }
    // The value is m * 2^binary_exponent() with 0.5 <= m < 1 (big.Float.MantExp); 0 for zero.
    std::int64_t binary_exponent() const;
    bool within_bounds() const { return binary_exponent() <= kMaxExponent && binary_exponent() >= -kMaxExponent; }
    // Truncated towards zero (big.Float.Int).
    BigInt trunc() const;
    // The value's decimal digits as Text(_, -1) finds them: the shortest decimal that rounds
    // back to this float at its precision. The sign of a zero is lost (see negative()).
    Decimal shortest() const;

    BigFloat abs() const {
        BigFloat r = *this;
        r.neg_ = false;
        return r;
    }
    friend BigFloat add(const BigFloat& a, const BigFloat& b);
    friend BigFloat sub(const BigFloat& a, const BigFloat& b);
    friend BigFloat mul(const BigFloat& a, const BigFloat& b);
    // b must not be zero.
    friend BigFloat quo(const BigFloat& a, const BigFloat& b);
    friend int compare(const BigFloat& a, const BigFloat& b);

private:
    // The exact value (neg ? -1 : 1) * mant * 2^exp, rounded to `prec` bits; `sticky` says that
    // nonzero bits below mant were dropped before (so a tie is not a tie).
    static BigFloat rounded(bool neg, BigInt mant, std::int64_t exp, unsigned prec, bool sticky = false);
    static BigFloat product(const BigFloat& a, const BigFloat& b, unsigned prec);
    static BigFloat quotient(const BigFloat& a, const BigFloat& b, unsigned prec);
    static BigFloat pow5(std::uint64_t n);  // as big.Float.pow5 at precision 128

    bool neg_ = false;
    BigInt mant_;           // >= 0, odd unless zero
    std::int64_t exp_ = 0;  // value = mant_ * 2^exp_
    unsigned prec_ = kPrecision;
};

}  // namespace gavel::runtime
