// Rego numbers: exact integers of any size, IEEE doubles for fractions, and the
// original literal text where printing must reproduce it.
//
// Representation (16 bytes, no allocation for the common cases):
//   Int   - int64_t inline. Every integral value that fits int64 ends up here
//           (also 1.0, 1e3, 2.5*2: numbers are normalised by value).
//   Float - double inline. Always finite and never integral.
//   Heap  - pointer to a shared node holding one of
//             * a big integer (Boost cpp_int) outside the int64 range,
//             * an Int/Float value plus the literal text it was written as
//               ("3.0", "1e-3", "1.5893857701234e+09"), kept for display only,
//             * a "huge" exact decimal that neither int64/cpp_int (exponent
//               over kMaxBigExponent) nor double (overflow/underflow) can hold,
//               e.g. 1e-400 or 1e5000; it always keeps its literal text.
//   Integers written with an exponent (2e308) are exact big integers and print
//   as written ("2e308"), which is what OPA's sprintf("%v", [2e308]) shows.
//
// Semantics: equality, ordering and hashing are by exact numeric value across
// all representations (1 == 1.0, hash(1) == hash(1.0)). Literal text is never
// significant for comparison.
//
// Text form (to_string / JSON output):
//   * literal text when the number carries one,
//   * integers as plain decimal digits,
//   * non-integers in the shortest digits that round-trip the double, laid out
//     like Go's strconv.FormatFloat(f, 'g', -1, 64) / big.Float.Text('g', -1)
//     as used by OPA's builtins.FloatToNumber: %e form with at least two
//     exponent digits ("1e-05", "1.2345675e+06") when the decimal exponent is
//     < -4 or >= 6 (Go's rule for shortest 'g'), otherwise plain ("0.1",
//     "1.5", "66.66667"). Integral results print as integers (OPA formats
//     integral big.Floats with 'f': 1.5 + 2.5 -> "4", 1e21 -> 21 digits).
//     Literals keep their text, so `1234567.5` written in a policy prints as
//     written (OPA keeps json.Number text too). Note: OPA computes with
//     64-bit-mantissa big.Floats, we with doubles; results of inexact float
//     arithmetic may differ in the last digits (e.g. 1/3). Integer
//     arithmetic is exact in both.
#pragma once

#include "runtime/node.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace gavel::runtime {

class Value;

// Numbers whose decimal exponent exceeds this are not expanded to big integers
// (1e5000 stays a literal "huge" decimal); guards against 1e999999999 inputs.
inline constexpr std::int64_t kMaxBigExponent = 1000;

class Number;

// Result of parsing or of an operation that can fail (divide by zero ...).
struct NumberResult;

class Number {
public:
    enum class Rep : std::uint8_t { Int, Float, Heap };

    Number() noexcept : rep_(Rep::Int), i_(0) {}
    Number(const Number& o) noexcept : rep_(o.rep_), i_(o.i_) {
        if (rep_ == Rep::Heap) detail::retain(p_);
    }
    Number(Number&& o) noexcept : rep_(o.rep_), i_(o.i_) {
        o.rep_ = Rep::Int;
        o.i_ = 0;
    }
    Number& operator=(const Number& o) noexcept {
        Number t(o);
        swap(t);
        return *this;
    }
    Number& operator=(Number&& o) noexcept {
        Number t(std::move(o));
        swap(t);
        return *this;
    }
    ~Number() {
        if (rep_ == Rep::Heap) detail::release(p_);
    }
    void swap(Number& o) noexcept {
        std::swap(rep_, o.rep_);
        std::swap(i_, o.i_);
    }

    // ---- construction -----------------------------------------------------
    static Number from_int(std::int64_t v) noexcept {
        Number n;
        n.i_ = v;
        return n;
    }
    static Number from_uint(std::uint64_t v);
    // `v` must be finite (non-finite input gives 0). Integral values are
    // normalised to exact integers.
    static Number from_double(double v);
    // Decimal integer text ("-123456789012345678901234567890"); no validation
    // beyond digits and an optional leading '-'. Prefer parse() for user text.
    static Number from_decimal_integer(std::string_view digits);
    // Parse Rego/JSON number syntax: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    static NumberResult parse(std::string_view text);

    // ---- inspection --------------------------------------------------------
    Rep rep() const noexcept { return rep_; }
    bool is_integer() const noexcept;            // value is integral (3.0 is)
    bool to_int64(std::int64_t& out) const noexcept; // integral and in range
    double to_double() const noexcept;           // nearest double (may be +-inf)
    int sign() const noexcept;                   // -1, 0, 1
    bool is_zero() const noexcept { return sign() == 0; }
    bool is_huge() const noexcept;               // exact decimal beyond int/double
    std::string_view literal() const noexcept;   // original text, or empty
    std::string to_string() const;               // OPA text form (see above)
    void append_to(std::string& out) const;      // same, appended
    std::uint64_t hash() const noexcept;         // consistent with compare()==0

    // Inline fast paths for the evaluator.
    bool is_small_int() const noexcept { return rep_ == Rep::Int; }
    std::int64_t small_int() const noexcept { return i_; }

    friend int compare(const Number& a, const Number& b) noexcept;
    friend bool operator==(const Number& a, const Number& b) noexcept {
        if (a.rep_ == Rep::Int && b.rep_ == Rep::Int) return a.i_ == b.i_;
        return compare(a, b) == 0;
    }
    friend bool operator<(const Number& a, const Number& b) noexcept {
        if (a.rep_ == Rep::Int && b.rep_ == Rep::Int) return a.i_ < b.i_;
        return compare(a, b) < 0;
    }
    friend bool operator>(const Number& a, const Number& b) noexcept { return b < a; }
    friend bool operator<=(const Number& a, const Number& b) noexcept { return !(b < a); }
    friend bool operator>=(const Number& a, const Number& b) noexcept { return !(a < b); }

    // Internal: raw access used by Value to store numbers inline.
    struct Raw {
        Rep rep;
        union {
            std::int64_t i;
            double d;
            detail::Node* p;
        };
    };
    Raw release_raw() noexcept {  // transfers ownership
        Raw r;
        r.rep = rep_;
        r.i = i_;
        rep_ = Rep::Int;
        i_ = 0;
        return r;
    }
    static Number from_raw_retain(Rep rep, std::int64_t bits) noexcept {
        Number n;
        n.rep_ = rep;
        n.i_ = bits;
        if (rep == Rep::Heap) detail::retain(n.p_);
        return n;
    }
    std::int64_t raw_bits() const noexcept { return i_; }
    explicit Number(detail::Node* adopt) noexcept : rep_(Rep::Heap), p_(adopt) {}
    const detail::Node* heap() const noexcept { return rep_ == Rep::Heap ? p_ : nullptr; }

private:
    Rep rep_;
    union {
        std::int64_t i_;
        double d_;
        detail::Node* p_;
    };
};

struct NumberResult {
    bool ok = false;
    Number value;
    std::string error;  // e.g. "divide by zero", "invalid number literal"
    explicit operator bool() const noexcept { return ok; }
    static NumberResult success(Number n) { return {true, std::move(n), {}}; }
    static NumberResult failure(std::string msg) { return {false, Number(), std::move(msg)}; }
};

// ---- arithmetic ------------------------------------------------------------
// Integer operands give exact integer results (int64 fast path, big beyond).
// A non-integral operand makes the operation a double one; results are
// normalised (2.5 * 2 == 5, an integer). Errors are values, never exceptions.
//   div: "divide by zero"; rem: "modulo by zero",
//   "modulo on floating-point number"; operations on huge decimals or results
//   that overflow a double: "number too large".
NumberResult add(const Number& a, const Number& b);
NumberResult sub(const Number& a, const Number& b);
NumberResult mul(const Number& a, const Number& b);
NumberResult div(const Number& a, const Number& b);
NumberResult rem(const Number& a, const Number& b);  // truncated (Go big.Int Rem)
Number negate(const Number& a);
Number abs(const Number& a);
Number round(const Number& a);  // half away from zero
Number ceil(const Number& a);
Number floor(const Number& a);

// Formats a finite double as described at the top of this file.
std::string format_double(double d);

namespace detail {
void destroy_number_node(Node* n) noexcept;
}

} // namespace gavel::runtime
