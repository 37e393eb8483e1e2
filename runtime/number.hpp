// Rego numbers as OPA has them: a number is its decimal text (json.Number). Two numbers are
// equal or ordered by their exact values (1 == 1.0, 0.30000000000000001 != 0.3), and a number
// prints as it was written ("1.0", "1e3", "-0") or, when computed, as OPA writes results.
//
// Representation (16 bytes, no allocation for the common cases):
//   Int   - int64_t inline. Every integral value that fits int64 ends up here
//           (also 1.0, 1e3, 2.5*2: numbers are normalised by value).
//   Float - double inline, standing for the shortest decimal that reads back to it
//           (Decimal::of_double). Always finite and never integral. A decimal that is no
//           double's shortest text (0.30000000000000001) is not stored as a double.
//   Heap  - pointer to a shared node holding one of
//             * a big integer (Boost cpp_int) outside the int64 range,
//             * an Int/Float/big value plus the literal text it was written as
//               ("3.0", "1e-3", "1.5893857701234e+09"), kept for display only,
//             * an exact decimal (decimal.hpp) for every other value: 1e-400,
//               0.30000000000000001, OPA's results such as 0.33333333333333333334, and
//               integers over kMaxBigExponent digits (1e5000, which keep their text).
//
// Semantics: equality, ordering and hashing are by exact numeric value across all
// representations (1 == 1.0, hash(1) == hash(1.0)). Literal text is never significant for
// comparison.
//
// Arithmetic (see the functions below) follows OPA's topdown/arithmetic.go: integers exactly,
// anything else with Go's big.Float at 64 bits (big_float.hpp), printed with the fewest digits
// that read back to the same 64-bit float: 0.1 + 0.2 is 0.3, -6 * 0.2 is -1.2, 1 / 3 is
// 0.33333333333333333334. Integral results print as integers (1.5 + 2.5 -> "4"), others in
// Go's 'g' layout ("1e-05", "1.0000005e+06", "0.1").
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
    bool is_integer() const noexcept;                 // value is integral (3.0 is)
    bool to_int64(std::int64_t& out) const noexcept;  // integral and in range
    // OPA's Number.Int64 (Go's json.Number.Int64): the text, as written, is an integer in
    // int64 range. 1.0 and 1e3 are not (where to_int64 takes them).
    bool written_int64(std::int64_t& out) const noexcept;
    double to_double() const noexcept;  // nearest double (may be +-inf)
    int sign() const noexcept;          // -1, 0, 1
    bool is_zero() const noexcept { return sign() == 0; }
    bool is_decimal() const noexcept;           // held as an exact decimal (see above)
    std::string_view literal() const noexcept;  // original text, or empty
    std::string to_string() const;              // OPA text form (see above)
    void append_to(std::string& out) const;     // same, appended
    std::uint64_t hash() const noexcept;        // consistent with compare()==0

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
// Integer operands give exact integer results (int64 fast path, big beyond); a non-integral
// operand makes it OPA's 64-bit big.Float operation (see the top of this file). Division is
// exact when an int divides an int, a float quotient otherwise. Errors are values, never
// exceptions: div "divide by zero"; rem "modulo by zero", "modulo on floating-point number";
// "number too large" for float operands or results beyond BigFloat's bounds (a binary exponent
// beyond +-2^17, more than 10,000 digits: big_float.hpp) and integral results of more than
// 100,000 digits. Integers compute exactly at any size, as in OPA's newest release (1.7.1
// rounded those beyond 64 bits).
NumberResult add(const Number& a, const Number& b);
NumberResult sub(const Number& a, const Number& b);
NumberResult mul(const Number& a, const Number& b);
NumberResult div(const Number& a, const Number& b);
NumberResult rem(const Number& a, const Number& b);  // truncated (Go big.Int Rem)
// a + b and a * b as 64-bit floats whatever the operands (sum and product of mixed numbers).
NumberResult add_as_floats(const Number& a, const Number& b);
NumberResult mul_as_floats(const Number& a, const Number& b);
Number negate(const Number& a);  // keeps literal text ("1e-3" -> "-1e-3")
// As OPA: an int64 is its own result (in canonical text: abs(101.0) is 101); anything else goes
// through big.Float. round is half away from zero; ceil and floor are OPA's, which truncate
// first: floor(-0.5) is 0 and ceil(-0.5) is 1 (OPA 1.7.1 and its newest release alike).
NumberResult abs(const Number& a);
NumberResult round(const Number& a);
NumberResult ceil(const Number& a);
NumberResult floor(const Number& a);

// A finite double's shortest text in Go's 'g' layout ("0.1", "1e-05", "1.2345675e+06").
std::string format_double(double d);

namespace detail {
void destroy_number_node(Node* n) noexcept;
}

}  // namespace gavel::runtime
