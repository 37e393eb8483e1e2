#include "runtime/big_float.hpp"

#include <boost/multiprecision/integer.hpp>

namespace gavel::runtime {

namespace {

std::int64_t bit_length(const BigInt& v) {
    return v == 0 ? 0 : static_cast<std::int64_t>(boost::multiprecision::msb(v)) + 1;
}

BigInt pow_of(unsigned base, std::uint64_t n) {
    return boost::multiprecision::pow(BigInt(base), static_cast<unsigned>(n));
}

// Go's decimal digit rounding (math/big/decimal.go): digits without trailing zeros, the value
// 0.digits * 10^exp.
struct Digits {
    std::string mant;
    std::int64_t exp = 0;

    char at(std::size_t i) const { return i < mant.size() ? mant[i] : '0'; }
    void trim() {
        while (!mant.empty() && mant.back() == '0') mant.pop_back();
        if (mant.empty()) exp = 0;
    }
    void round_down(std::size_t n) {
        if (n >= mant.size()) return;
        mant.resize(n);
        trim();
    }
    void round_up(std::size_t n) {
        if (n >= mant.size()) return;
        while (n > 0 && mant[n - 1] >= '9') --n;
        if (n == 0) {  // all nines
            mant = "1";
            ++exp;
            return;
        }
        ++mant[n - 1];
        mant.resize(n);
    }
    void round(std::size_t n) {
        if (n >= mant.size()) return;
        bool up = mant[n] == '5' && n + 1 == mant.size() ? n > 0 && ((mant[n - 1] - '0') & 1) != 0 : mant[n] >= '5';
        if (up) round_up(n);
        else round_down(n);
    }
};

// The exact decimal digits of m * 2^e (m > 0).
Digits exact_digits(const BigInt& m, std::int64_t e) {
    Decimal d = e >= 0 ? Decimal::of_big(BigInt(m << static_cast<unsigned>(e)))
                       : Decimal::of_digits(false, BigInt(m * pow_of(5, static_cast<std::uint64_t>(-e))).str(), e);
    return Digits{std::move(d.digits), d.exp};
}

}  // namespace

BigFloat BigFloat::rounded(bool neg, BigInt mant, std::int64_t exp, unsigned prec, bool sticky) {
    BigFloat r;
    r.prec_ = prec;
    r.neg_ = neg;
    if (mant == 0) {
        r.exp_ = 0;
        return r;
    }
    std::int64_t len = bit_length(mant);
    if (len > static_cast<std::int64_t>(prec)) {
        auto shift = static_cast<unsigned>(len - prec);
        BigInt rest = mant & ((BigInt(1) << shift) - 1);
        mant >>= shift;
        exp += shift;
        BigInt half = BigInt(1) << (shift - 1);
        bool up = rest > half || (rest == half && (sticky || (mant & 1) != 0));
        if (up) mant += 1;
    }
    if (mant != 0) {
        auto tz = static_cast<unsigned>(boost::multiprecision::lsb(mant));
        mant >>= tz;
        exp += tz;
    }
    r.mant_ = std::move(mant);
    r.exp_ = exp;
    return r;
}

BigFloat BigFloat::from_int(std::int64_t v) {
    bool neg = v < 0;
    BigInt m(v);
    if (neg) m = -m;
    return rounded(neg, std::move(m), 0, kPrecision);
}

BigFloat BigFloat::product(const BigFloat& a, const BigFloat& b, unsigned prec) {
    return rounded(a.neg_ != b.neg_, a.mant_ * b.mant_, a.exp_ + b.exp_, prec);
}

BigFloat BigFloat::quotient(const BigFloat& a, const BigFloat& b, unsigned prec) {
    bool neg = a.neg_ != b.neg_;
    if (a.mant_ == 0) {
        BigFloat r;
        r.neg_ = neg;
        r.prec_ = prec;
        return r;
    }
    // Enough quotient bits for the rounding (prec + a guard bit), the rest in the sticky bit.
    std::int64_t s = static_cast<std::int64_t>(prec) + 2 + bit_length(b.mant_) - bit_length(a.mant_);
    if (s < 0) s = 0;
    BigInt num = a.mant_ << static_cast<unsigned>(s);
    BigInt q, rem;
    boost::multiprecision::divide_qr(num, b.mant_, q, rem);
    return rounded(neg, std::move(q), a.exp_ - b.exp_ - s, prec, rem != 0);
}

BigFloat BigFloat::pow5(std::uint64_t n) {
    // big.Float.pow5: 5^27 fits a uint64 (exact); beyond, binary powering with the running
    // product at 128 bits and the squares at 192 bits.
    constexpr std::uint64_t kExact = 27;
    if (n <= kExact) return rounded(false, pow_of(5, n), 0, 128);
    BigFloat z = rounded(false, pow_of(5, kExact), 0, 128);
    n -= kExact;
    BigFloat f = rounded(false, BigInt(5), 0, 192);
    while (n > 0) {
        if (n & 1) z = product(z, f, 128);
        f = product(f, f, 192);
        n >>= 1;
    }
    return z;
}

std::optional<BigFloat> BigFloat::from_decimal(const Decimal& d) {
    if (d.is_zero()) return BigFloat{};
    if (d.digits.size() > kMaxDigits) return std::nullopt;
    // 0.digits * 10^exp is within 10^(exp-1) .. 10^exp: refuse what is out of bounds before
    // computing anything (log2(10) < 3.33).
    if (d.exp > kMaxExponent / 3 + 1 || d.exp < -(kMaxExponent / 3) - 1) return std::nullopt;
    // value = N * 10^k: the digits as an integer N, scaled.
    std::int64_t k = d.exp - static_cast<std::int64_t>(d.digits.size());
    if (k == 0) return rounded(d.neg, BigInt(d.digits), 0, kPrecision);
    // As big.Float.scan: z = N * 2^k exactly (not rounded), then multiplied or divided by 5^|k|.
    BigFloat z;
    z.neg_ = d.neg;
    z.mant_ = BigInt(d.digits);
    z.exp_ = k;
    z.prec_ = kPrecision;
    std::uint64_t e5 = static_cast<std::uint64_t>(k < 0 ? -k : k);
    BigFloat p = pow5(e5);
    BigFloat r = k < 0 ? quotient(z, p, kPrecision) : product(z, p, kPrecision);
    if (!r.within_bounds()) return std::nullopt;
    return r;
}

std::int64_t BigFloat::binary_exponent() const { return mant_ == 0 ? 0 : exp_ + bit_length(mant_); }

BigInt BigFloat::trunc() const {
    if (mant_ == 0) return BigInt(0);
    BigInt v = exp_ >= 0 ? BigInt(mant_ << static_cast<unsigned>(exp_)) : BigInt(mant_ >> static_cast<unsigned>(-exp_));
    return neg_ ? BigInt(-v) : v;
}

Decimal BigFloat::shortest() const {
    if (mant_ == 0) return Decimal{};
    Digits d = exact_digits(mant_, exp_);
    // big.Float roundShortest: the bounds are the value -+ 1/2 ulp at the precision; the
    // mantissa with prec + 1 bits has its lsb at 1/2 ulp.
    std::int64_t len = bit_length(mant_);
    std::int64_t s = static_cast<std::int64_t>(prec_) + 1 - len;
    BigInt m = s >= 0 ? BigInt(mant_ << static_cast<unsigned>(s)) : BigInt(mant_ >> static_cast<unsigned>(-s));
    std::int64_t e = exp_ - s;
    Digits lower = exact_digits(BigInt(m - 1), e);
    Digits upper = exact_digits(BigInt(m + 1), e);
    // Both bounds round to this float only when its mantissa is even (ties to even).
    bool inclusive = (m & 2) == 0;
    // As Go walks them: digit i of each bound's own mantissa (not aligned on d's exponent).
    for (std::size_t i = 0; i < d.mant.size(); ++i) {
        char l = lower.at(i);
        char mi = d.mant[i];
        char u = upper.at(i);
        bool okdown = l != mi || (inclusive && i + 1 == lower.mant.size());
        bool okup = mi != u && (inclusive || mi + 1 < u || i + 1 < upper.mant.size());
        if (okdown && okup) {
            d.round(i + 1);
            break;
        }
        if (okdown) {
            d.round_down(i + 1);
            break;
        }
        if (okup) {
            d.round_up(i + 1);
            break;
        }
    }
    Decimal r;
    r.neg = neg_;
    r.digits = std::move(d.mant);
    r.exp = d.exp;
    if (r.digits.empty()) r = Decimal{};
    return r;
}

BigFloat add(const BigFloat& a, const BigFloat& b) {
    unsigned prec = std::max(a.prec_, b.prec_);
    if (a.mant_ == 0 && b.mant_ == 0) {
        BigFloat r;
        r.neg_ = a.neg_ && b.neg_;  // -0 + -0 = -0, else +0
        r.prec_ = prec;
        return r;
    }
    if (a.mant_ == 0) return BigFloat::rounded(b.neg_, b.mant_, b.exp_, prec);
    if (b.mant_ == 0) return BigFloat::rounded(a.neg_, a.mant_, a.exp_, prec);
    std::int64_t e = std::min(a.exp_, b.exp_);
    BigInt x = a.mant_ << static_cast<unsigned>(a.exp_ - e);
    BigInt y = b.mant_ << static_cast<unsigned>(b.exp_ - e);
    if (a.neg_) x = -x;
    if (b.neg_) y = -y;
    BigInt sum = x + y;
    bool neg = sum < 0;  // an exact zero is +0
    if (neg) sum = -sum;
    return BigFloat::rounded(neg, std::move(sum), e, prec);
}

BigFloat sub(const BigFloat& a, const BigFloat& b) {
    BigFloat nb = b;
    nb.neg_ = !b.neg_;
    return add(a, nb);
}

BigFloat mul(const BigFloat& a, const BigFloat& b) { return BigFloat::product(a, b, std::max(a.prec_, b.prec_)); }

BigFloat quo(const BigFloat& a, const BigFloat& b) { return BigFloat::quotient(a, b, std::max(a.prec_, b.prec_)); }

int compare(const BigFloat& a, const BigFloat& b) {
    BigFloat d = sub(a, b);
    if (d.mant_ == 0) return 0;
    return d.neg_ ? -1 : 1;
}

}  // namespace gavel::runtime
