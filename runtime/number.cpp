#include "runtime/number.hpp"

#include "runtime/big_float.hpp"
#include "runtime/bigint.hpp"
#include "runtime/decimal.hpp"
#include "runtime/hash.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace gavel::runtime {

namespace {

// Number heap nodes hold an int64 or double with literal text, a big integer, or an exact
// decimal (a value no int64, big integer or double's shortest text is: 0.30000000000000001,
// 1e-400, OPA's 20-digit results such as 0.33333333333333333334).
enum class Inner : std::uint8_t { Int, Float, Big, Dec };

struct NumNode : detail::Node {
    NumNode() : Node(detail::NodeType::Number) {}
    Inner inner = Inner::Int;
    std::int64_t i = 0;
    double d = 0;
    BigInt big;
    Decimal dec;       // Dec only
    std::string text;  // literal text; empty when none
};

const NumNode* node_of(const Number& n) { return static_cast<const NumNode*>(n.heap()); }

// What a number is, whatever its storage.
struct View {
    Inner k;
    std::int64_t i = 0;
    double d = 0;
    const NumNode* node = nullptr;  // for Big / Dec / text
};

View view(const Number& n) {
    switch (n.rep()) {
        case Number::Rep::Int: return {Inner::Int, n.small_int(), 0, nullptr};
        case Number::Rep::Float: {
            View v{Inner::Float};
            std::int64_t bits = n.raw_bits();
            std::memcpy(&v.d, &bits, sizeof v.d);
            return v;
        }
        case Number::Rep::Heap: break;
    }
    const NumNode* p = node_of(n);
    return {p->inner, p->i, p->d, p};
}

Number make_node(NumNode* p) { return Number(static_cast<detail::Node*>(p)); }

Number make_float(double d) {
    std::int64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    Number tmp = Number::from_raw_retain(Number::Rep::Float, bits);
    return tmp;
}

Number make_big(BigInt v) {
    auto* p = new NumNode;
    p->inner = Inner::Big;
    p->big = std::move(v);
    return make_node(p);
}

Number make_dec(Decimal d, std::string text = {}) {
    auto* p = new NumNode;
    p->inner = Inner::Dec;
    p->d = d.to_double();
    p->dec = std::move(d);
    p->text = std::move(text);
    return make_node(p);
}

constexpr double kTwo63 = 9223372036854775808.0;

BigInt big_from_integral_double(double x) {
    if (x == 0) return BigInt(0);
    bool neg = x < 0;
    int e = 0;
    double m = std::frexp(std::fabs(x), &e);  // x = m * 2^e, 0.5 <= m < 1
    auto mant = static_cast<std::int64_t>(std::ldexp(m, 53));
    e -= 53;
    BigInt r(mant);
    if (e > 0) r <<= e;
    else if (e < 0) r >>= -e;  // exact: x is integral
    return neg ? BigInt(-r) : r;
}

int cmp_int_double(std::int64_t i, double d) {
    if (d >= kTwo63) return -1;
    if (d < -kTwo63) return 1;
    double t = std::trunc(d);
    auto ti = static_cast<std::int64_t>(t);
    if (i < ti) return -1;
    if (i > ti) return 1;
    double frac = d - t;
    return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

int cmp_big(const BigInt& a, const BigInt& b) {
    int c = a.compare(b);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

int cmp_big_double(const BigInt& b, double d) {
    double fl = std::floor(d);
    int c = cmp_big(b, big_from_integral_double(fl));
    if (c != 0) return c;
    return d > fl ? -1 : 0;
}

// The exact value. A Float stands for the shortest decimal that reads back to its double
// (Decimal::of_double); doubles order as those decimals do, so comparing two doubles is exact.
Decimal dec_of(const View& v) {
    switch (v.k) {
        case Inner::Int: return Decimal::of_int(v.i);
        case Inner::Float: return Decimal::of_double(v.d);
        case Inner::Big: return Decimal::of_big(v.node->big);
        case Inner::Dec: return v.node->dec;
    }
    return Decimal{};
}

std::uint64_t hash_int(std::int64_t i) { return hash_mix(static_cast<std::uint64_t>(i)); }

std::string negate_text(std::string_view t) {
    if (!t.empty() && t[0] == '-') return std::string(t.substr(1));
    std::string r = "-";
    r += t;
    return r;
}

bool is_integral_view(const View& v) {
    switch (v.k) {
        case Inner::Int:
        case Inner::Big: return true;
        case Inner::Float: return false;
        case Inner::Dec: return v.node->dec.is_integral();
    }
    return false;
}

BigInt big_of(const View& v) { return v.k == Inner::Int ? BigInt(v.i) : v.node->big; }

double double_of(const View& v) {
    switch (v.k) {
        case Inner::Int: return static_cast<double>(v.i);
        case Inner::Float: return v.d;
        case Inner::Big: return v.node->big.convert_to<double>();
        case Inner::Dec: return v.node->d;
    }
    return 0;
}

// The canonical number of an exact decimal: an int64 or big integer when integral (up to
// kMaxBigExponent digits), a double when the value is the shortest text of one, else a decimal.
Number number_of_decimal(Decimal d) {
    if (d.is_integral()) {
        if (d.exp <= 18) {
            std::int64_t v = 0;
            for (char c : d.digits) v = v * 10 + (c - '0');
            for (auto k = static_cast<std::int64_t>(d.digits.size()); k < d.exp; ++k) v *= 10;
            return Number::from_int(d.neg ? -v : v);
        }
        if (auto b = d.to_big_int(kMaxBigExponent)) return number_from_big(*b);
        return make_dec(std::move(d));
    }
    double x = d.to_double();
    if (std::isfinite(x) && x != 0 && compare(Decimal::of_double(x), d) == 0) return make_float(x);
    return make_dec(std::move(d));
}

// `canon` spelled as `text` (kept for printing when it differs from canon's own text).
Number with_text(Number canon, std::string_view text) {
    if (canon.to_string() == text) return canon;
    View v = view(canon);
    auto* node = new NumNode;
    node->inner = v.k;
    node->i = v.i;
    node->d = v.d;
    if (v.k == Inner::Big) node->big = v.node->big;
    if (v.k == Inner::Dec) node->dec = v.node->dec;
    node->text.assign(text);
    return make_node(node);
}

// ---- OPA's float arithmetic (big_float.hpp) ----------------------------------------------

std::optional<BigFloat> float_of(const View& v) {
    if (v.k == Inner::Int) {
        // big.Float.SetString keeps the sign of a zero ("-0", "-0.0").
        if (v.i == 0 && v.node && !v.node->text.empty() && v.node->text[0] == '-') return BigFloat::zero(true);
        return BigFloat::from_int(v.i);
    }
    return BigFloat::from_decimal(dec_of(v));
}

// An integer OPA reads as one (json.Number.Int64 parses its text): "3", "-0", a big integer;
// not "3.0" or "1e3", which OPA 1.7.1 computes with as floats (so -1 * 0.0 is -0).
bool int_text(const View& v) {
    if (v.k != Inner::Int && v.k != Inner::Big) return false;
    return !v.node || v.node->text.empty() || v.node->text == "-0";
}

// Results of integral value print in plain digits; beyond this many, OPA would write a
// string of that size: refused instead.
constexpr std::int64_t kMaxResultDigits = 100000;

NumberResult too_large() { return NumberResult::failure("number too large"); }

// builtins.FloatToNumber: the shortest digits of the float, as an integer when it is one.
NumberResult number_of_float(const BigFloat& f) {
    if (f.is_zero()) return NumberResult::success(f.negative() ? with_text(Number(), "-0") : Number());
    if (!f.within_bounds()) return too_large();
    Decimal d = f.shortest();
    if (d.is_integral() && d.exp > kMaxResultDigits) return too_large();
    return NumberResult::success(number_of_decimal(std::move(d)));
}

}  // namespace

namespace detail {
void destroy_number_node(Node* n) noexcept { delete static_cast<NumNode*>(n); }
}  // namespace detail

// ---- construction -----------------------------------------------------------

Number Number::from_uint(std::uint64_t v) {
    if (v <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return from_int(static_cast<std::int64_t>(v));
    return make_big(BigInt(v));
}

Number Number::from_double(double v) {
    if (!std::isfinite(v)) return Number();
    if (v == std::trunc(v)) {
        if (v >= -kTwo63 && v < kTwo63) return from_int(static_cast<std::int64_t>(v));
        return make_big(big_from_integral_double(v));
    }
    return make_float(v);
}

Number Number::from_decimal_integer(std::string_view digits) {
    std::int64_t i = 0;
    auto res = std::from_chars(digits.data(), digits.data() + digits.size(), i);
    if (res.ec == std::errc() && res.ptr == digits.data() + digits.size()) return from_int(i);
    try {
        return number_from_big(BigInt(std::string(digits)));
    } catch (...) {
        return Number();
    }
}

std::optional<BigInt> to_big_int(const Number& n) {
    View v = view(n);
    switch (v.k) {
        case Inner::Int: return BigInt(v.i);
        case Inner::Big: return v.node->big;
        case Inner::Float:
        case Inner::Dec: break;
    }
    return std::nullopt;  // decimals are never expanded (see kMaxBigExponent)
}

std::string big_decimal_text(const BigInt& v) { return v.str(); }

Number number_from_big(const BigInt& v) {
    if (v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max())
        return Number::from_int(v.convert_to<std::int64_t>());
    return make_big(v);
}

Decimal to_decimal(const Number& n) { return dec_of(view(n)); }

Number number_from_decimal(const Decimal& d) { return number_of_decimal(d); }

NumberResult Number::parse(std::string_view text) {
    // Fast path: plain integer that surely fits int64.
    if (!text.empty() && text.size() <= 19) {
        std::size_t p = text[0] == '-' ? 1 : 0;
        std::size_t n = text.size() - p;
        bool plain = n >= 1 && n <= 18 && (text[p] != '0' || n == 1);
        for (std::size_t k = p; plain && k < text.size(); ++k) plain = text[k] >= '0' && text[k] <= '9';
        if (plain) {
            std::int64_t v = 0;
            for (std::size_t k = p; k < text.size(); ++k) v = v * 10 + (text[k] - '0');
            if (p == 1 && v == 0) return NumberResult::success(with_text(Number(), text));  // "-0"
            return NumberResult::success(from_int(p == 1 ? -v : v));
        }
    }
    auto dec = Decimal::parse(text);
    if (!dec) return NumberResult::failure("invalid number literal: \"" + std::string(text) + "\"");
    if (!dec->is_integral() || dec->exp <= kMaxBigExponent)
        return NumberResult::success(with_text(number_of_decimal(std::move(*dec)), text));
    // Integers too long to expand keep their text and stay exact decimals.
    return NumberResult::success(make_dec(std::move(*dec), std::string(text)));
}

// ---- inspection -----------------------------------------------------------

bool Number::is_integer() const noexcept {
    if (rep_ == Rep::Int) return true;
    if (rep_ == Rep::Float) return false;
    return is_integral_view(view(*this));
}

bool Number::to_int64(std::int64_t& out) const noexcept {
    if (rep_ == Rep::Int) {
        out = i_;
        return true;
    }
    View v = view(*this);
    if (v.k == Inner::Int) {
        out = v.i;
        return true;
    }
    return false;
}

bool Number::written_int64(std::int64_t& out) const noexcept {
    if (rep_ == Rep::Int) {
        out = i_;
        return true;
    }
    if (literal().find_first_of(".eE") != std::string_view::npos) return false;
    return to_int64(out);
}

double Number::to_double() const noexcept {
    if (rep_ == Rep::Int) return static_cast<double>(i_);
    if (rep_ == Rep::Float) return d_;
    return double_of(view(*this));
}

int Number::sign() const noexcept {
    View v = view(*this);
    switch (v.k) {
        case Inner::Int: return v.i < 0 ? -1 : (v.i > 0 ? 1 : 0);
        case Inner::Float: return v.d < 0 ? -1 : (v.d > 0 ? 1 : 0);
        case Inner::Big: return v.node->big.sign();
        case Inner::Dec: return v.node->dec.sign();
    }
    return 0;
}

bool Number::is_decimal() const noexcept { return rep_ == Rep::Heap && node_of(*this)->inner == Inner::Dec; }

std::string_view Number::literal() const noexcept {
    if (rep_ != Rep::Heap) return {};
    return node_of(*this)->text;
}

std::string Number::to_string() const {
    std::string s;
    append_to(s);
    return s;
}

void Number::append_to(std::string& out) const {
    View v = view(*this);
    if (v.node && !v.node->text.empty()) {
        out += v.node->text;
        return;
    }
    switch (v.k) {
        case Inner::Int: {
            char buf[32];
            auto r = std::to_chars(buf, buf + sizeof buf, v.i);
            out.append(buf, r.ptr);
            return;
        }
        case Inner::Float: out += format_double(v.d); return;
        case Inner::Big: out += v.node->big.str(); return;
        case Inner::Dec:
            out += v.node->dec.is_integral() ? v.node->dec.format_integer() : v.node->dec.format_g();
            return;
    }
}

std::uint64_t Number::hash() const noexcept {
    if (rep_ == Rep::Int) return hash_int(i_);
    View v = view(*this);
    switch (v.k) {
        case Inner::Int: return hash_int(v.i);
        case Inner::Float: {
            std::uint64_t bits;
            std::memcpy(&bits, &v.d, sizeof bits);
            return hash_mix(bits ^ 0x9e3779b97f4a7c15ULL);
        }
        case Inner::Big:
        case Inner::Dec: return runtime::hash(dec_of(v));
    }
    return 0;
}

int compare(const Number& a, const Number& b) noexcept {
    if (a.rep_ == Number::Rep::Int && b.rep_ == Number::Rep::Int) return a.i_ < b.i_ ? -1 : (a.i_ > b.i_ ? 1 : 0);
    View x = view(a), y = view(b);
    if (x.k == Inner::Dec || y.k == Inner::Dec) return compare(dec_of(x), dec_of(y));
    switch (x.k) {
        case Inner::Int:
            switch (y.k) {
                case Inner::Int: return x.i < y.i ? -1 : (x.i > y.i ? 1 : 0);
                case Inner::Float: return cmp_int_double(x.i, y.d);
                default: return -y.node->big.sign();  // big is outside int64 range
            }
        case Inner::Float:
            switch (y.k) {
                case Inner::Int: return -cmp_int_double(y.i, x.d);
                case Inner::Float: return x.d < y.d ? -1 : (x.d > y.d ? 1 : 0);
                default: return -cmp_big_double(y.node->big, x.d);
            }
        default:
            switch (y.k) {
                case Inner::Int: return x.node->big.sign();
                case Inner::Float: return cmp_big_double(x.node->big, y.d);
                default: return cmp_big(x.node->big, y.node->big);
            }
    }
}

// ---- formatting -------------------------------------------------------------

std::string format_double(double d) {
    if (!std::isfinite(d) || d == 0) return "0";
    return Decimal::of_double(d).format_g();
}

// ---- arithmetic ---------------------------------------------------------------
// As OPA's topdown/arithmetic.go (newest release): integers exactly, anything else through
// BigFloat (OPA 1.7.1 also took integers beyond +-999 through floats, which rounds those
// beyond 64 bits; its newest release computes them exactly, as here).

namespace {

enum class Op { Add, Sub, Mul };

NumberResult float_arith(const View& x, const View& y, Op op) {
    auto fx = float_of(x), fy = float_of(y);
    if (!fx || !fy) return too_large();
    return number_of_float(op == Op::Add ? add(*fx, *fy) : op == Op::Sub ? sub(*fx, *fy) : mul(*fx, *fy));
}

NumberResult arith(const Number& a, const Number& b, Op op) {
    View x = view(a), y = view(b);
    if (x.k == Inner::Int && y.k == Inner::Int && int_text(x) && int_text(y)) {
        std::int64_t r;
        bool ovf = op == Op::Add   ? __builtin_add_overflow(x.i, y.i, &r)
                   : op == Op::Sub ? __builtin_sub_overflow(x.i, y.i, &r)
                                   : __builtin_mul_overflow(x.i, y.i, &r);
        if (!ovf) return NumberResult::success(Number::from_int(r));
    }
    if (int_text(x) && int_text(y)) {
        BigInt p = big_of(x), q = big_of(y);
        BigInt r = op == Op::Add ? BigInt(p + q) : op == Op::Sub ? BigInt(p - q) : BigInt(p * q);
        return NumberResult::success(number_from_big(r));
    }
    return float_arith(x, y, op);
}

}  // namespace

NumberResult add(const Number& a, const Number& b) { return arith(a, b, Op::Add); }
NumberResult add_as_floats(const Number& a, const Number& b) { return float_arith(view(a), view(b), Op::Add); }
NumberResult mul_as_floats(const Number& a, const Number& b) { return float_arith(view(a), view(b), Op::Mul); }
NumberResult sub(const Number& a, const Number& b) { return arith(a, b, Op::Sub); }
NumberResult mul(const Number& a, const Number& b) { return arith(a, b, Op::Mul); }

NumberResult div(const Number& a, const Number& b) {
    if (b.is_zero()) return NumberResult::failure("divide by zero");
    View x = view(a), y = view(b);
    // Exact when an int divides an int (a zero dividend excepted: 0 / -5 is -0); anything
    // else is a float quotient.
    if (x.k == Inner::Int && y.k == Inner::Int && int_text(x) && int_text(y) && x.i != 0 &&
        !(y.i == -1 && x.i == std::numeric_limits<std::int64_t>::min()) && x.i % y.i == 0)
        return NumberResult::success(Number::from_int(x.i / y.i));
    auto fx = float_of(x), fy = float_of(y);
    if (!fx || !fy) return too_large();
    return number_of_float(quo(*fx, *fy));
}

NumberResult rem(const Number& a, const Number& b) {
    View x = view(a), y = view(b);
    if (x.k == Inner::Int && y.k == Inner::Int && int_text(x) && int_text(y)) {
        if (y.i == 0) return NumberResult::failure("modulo by zero");
        if (y.i == -1) return NumberResult::success(Number::from_int(0));
        return NumberResult::success(Number::from_int(x.i % y.i));
    }
    // OPA's NumberToInt: an integer read as one, anything else the integer its 64-bit float is.
    auto integer_of = [](const View& v) -> std::optional<BigInt> {
        if (int_text(v)) return big_of(v);
        auto f = float_of(v);
        if (!f || !f->is_int()) return std::nullopt;
        return f->trunc();
    };
    auto p = integer_of(x), q = integer_of(y);
    if (!p || !q) return NumberResult::failure("modulo on floating-point number");
    if (*q == 0) return NumberResult::failure("modulo by zero");
    return NumberResult::success(number_from_big(BigInt(*p % *q)));  // sign of dividend
}

Number negate(const Number& a) {
    View v = view(a);
    bool has_text = v.node && !v.node->text.empty();
    if (!has_text) {
        switch (v.k) {
            case Inner::Int:
                if (v.i == std::numeric_limits<std::int64_t>::min()) return make_big(-BigInt(v.i));
                return Number::from_int(-v.i);
            case Inner::Float: return make_float(-v.d);
            case Inner::Big: return number_from_big(-v.node->big);
            case Inner::Dec: {
                Decimal d = v.node->dec;
                if (!d.is_zero()) d.neg = !d.neg;
                return make_dec(std::move(d));
            }
        }
    }
    // Keep the literal text, negated ("1e-3" -> "-1e-3").
    auto* node = new NumNode;
    node->text = negate_text(v.node->text);
    node->inner = v.k;
    switch (v.k) {
        case Inner::Int:
            if (v.i == std::numeric_limits<std::int64_t>::min()) {
                delete node;
                return make_big(-BigInt(v.i));
            }
            node->i = -v.i;
            break;
        case Inner::Float: node->d = -v.d; break;
        case Inner::Big: node->big = -v.node->big; break;
        case Inner::Dec:
            node->dec = v.node->dec;
            if (!node->dec.is_zero()) node->dec.neg = !node->dec.neg;
            node->d = -v.node->d;
            break;
    }
    return make_node(node);
}

// abs, round, ceil and floor as OPA: an int64 stays (its canonical text: abs(101.0) is 101);
// anything else goes through BigFloat, which rounds decimals of more than 19 digits and
// integers beyond 64 bits to its precision.

NumberResult abs(const Number& a) {
    View v = view(a);
    if (v.k == Inner::Int) {
        if (v.i == std::numeric_limits<std::int64_t>::min()) return NumberResult::success(make_big(-BigInt(v.i)));
        return NumberResult::success(Number::from_int(v.i < 0 ? -v.i : v.i));
    }
    auto f = float_of(v);
    if (!f) return too_large();
    return number_of_float(f->abs());
}

namespace {

enum class Rounding { Round, Ceil, Floor };

NumberResult integral(const Number& a, Rounding how) {
    View v = view(a);
    if (v.k == Inner::Int) return NumberResult::success(Number::from_int(v.i));
    // Below one tenth, whatever its exponent (1e-400000 is beyond BigFloat's bounds): OPA's
    // truncation gives 0, and ceil adds one to any nonzero value (ceil(-0.05) is 1 too).
    if (v.k == Inner::Dec && v.node->dec.exp < 0) {
        bool one = how == Rounding::Ceil && !v.node->dec.is_zero();
        return NumberResult::success(Number::from_int(one ? 1 : 0));
    }
    auto f = float_of(v);
    if (!f) return too_large();
    BigInt i;
    switch (how) {
        case Rounding::Round: {  // half away from zero, the half added at 64 bits
            BigFloat half = *BigFloat::from_decimal(Decimal::of_digits(false, "5", -1));
            i = (f->negative() ? sub(*f, half) : add(*f, half)).trunc();
            break;
        }
        case Rounding::Ceil:  // OPA's: truncation, plus one unless negative (ceil(-0.5) is 1)
            i = f->trunc();
            if (!(i < 0) && !f->is_int()) i += 1;
            break;
        case Rounding::Floor:  // OPA's: truncation, minus one if negative (floor(-0.5) is 0)
            i = f->trunc();
            if (i < 0 && !f->is_int()) i -= 1;
            break;
    }
    if (boost::multiprecision::msb(i == 0 ? BigInt(1) : BigInt(boost::multiprecision::abs(i))) > 4 * kMaxResultDigits)
        return too_large();
    return NumberResult::success(number_from_big(i));
}

}  // namespace

NumberResult round(const Number& a) { return integral(a, Rounding::Round); }
NumberResult ceil(const Number& a) { return integral(a, Rounding::Ceil); }
NumberResult floor(const Number& a) { return integral(a, Rounding::Floor); }

}  // namespace gavel::runtime
