#include "runtime/number.hpp"

#include "runtime/bigint.hpp"
#include "runtime/hash.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace gavel::runtime {

namespace {

enum class Inner : std::uint8_t { Int, Float, Big, Huge };

// Exact decimal: value = (neg ? -1 : 1) * 0.DIGITS * 10^exp. `digits` has no
// leading or trailing zeros; zero has empty digits.
struct Dec {
    bool neg = false;
    std::string digits;
    std::int64_t exp = 0;
};

struct NumNode : detail::Node {
    NumNode() : Node(detail::NodeType::Number) {}
    Inner inner = Inner::Int;
    std::int64_t i = 0;
    double d = 0;
    BigInt big;
    std::string text;  // literal text; empty when none
    Dec dec;           // Huge only
};

const NumNode* node_of(const Number& n) {
    return static_cast<const NumNode*>(n.heap());
}

// What a number is, whatever its storage.
struct View {
    Inner k;
    std::int64_t i = 0;
    double d = 0;
    const NumNode* node = nullptr;  // for Big / Huge / text
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

Dec dec_from_digits(bool neg, std::string_view s) {  // s: decimal integer digits
    Dec r;
    r.neg = neg;
    std::size_t lead = 0;
    while (lead < s.size() && s[lead] == '0') ++lead;
    s.remove_prefix(lead);
    if (s.empty()) return Dec{};
    r.exp = static_cast<std::int64_t>(s.size());
    while (!s.empty() && s.back() == '0') s.remove_suffix(1);
    r.digits.assign(s);
    return r;
}

Dec dec_of_int(std::int64_t i) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, i);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
    bool neg = false;
    if (!s.empty() && s[0] == '-') {
        neg = true;
        s.remove_prefix(1);
    }
    return dec_from_digits(neg, s);
}

Dec dec_of_big(const BigInt& b) {
    std::string s = b.str();
    bool neg = !s.empty() && s[0] == '-';
    return dec_from_digits(neg, std::string_view(s).substr(neg ? 1 : 0));
}

// Shortest round-trip digits of a finite double.
Dec dec_of_double(double d) {
    if (d == 0) return Dec{};
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
    std::string_view s(buf, static_cast<std::size_t>(res.ptr - buf));
    Dec r;
    if (s[0] == '-') {
        r.neg = true;
        s.remove_prefix(1);
    }
    auto epos = s.find('e');
    std::string_view mant = s.substr(0, epos);
    int x = 0;
    std::string_view es = s.substr(epos + 1);
    if (!es.empty() && es[0] == '+') es.remove_prefix(1);
    std::from_chars(es.data(), es.data() + es.size(), x);
    for (char c : mant)
        if (c != '.') r.digits.push_back(c);
    while (!r.digits.empty() && r.digits.back() == '0') r.digits.pop_back();
    r.exp = x + 1;
    return r;
}

Dec dec_of(const View& v) {
    switch (v.k) {
    case Inner::Int: return dec_of_int(v.i);
    case Inner::Float: return dec_of_double(v.d);
    case Inner::Big: return dec_of_big(v.node->big);
    case Inner::Huge: return v.node->dec;
    }
    return Dec{};
}

int cmp_dec(const Dec& a, const Dec& b) {
    int sa = a.digits.empty() ? 0 : (a.neg ? -1 : 1);
    int sb = b.digits.empty() ? 0 : (b.neg ? -1 : 1);
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

std::uint64_t hash_dec(const Dec& d) {
    std::uint64_t h = hash_bytes(d.digits.data(), d.digits.size());
    return hash_mix(h ^ hash_mix(static_cast<std::uint64_t>(d.exp) * 2 + (d.neg ? 1 : 0)));
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
    case Inner::Huge: return v.node->dec.exp >= static_cast<std::int64_t>(v.node->dec.digits.size());
    }
    return false;
}

BigInt big_of(const View& v) {
    return v.k == Inner::Int ? BigInt(v.i) : v.node->big;
}

double double_of(const View& v) {
    switch (v.k) {
    case Inner::Int: return static_cast<double>(v.i);
    case Inner::Float: return v.d;
    case Inner::Big: return v.node->big.convert_to<double>();
    case Inner::Huge: {
        const Dec& d = v.node->dec;
        double inf = std::numeric_limits<double>::infinity();
        double r = d.exp > 0 ? inf : 0.0;
        return d.neg ? -r : r;
    }
    }
    return 0;
}

// Strips literal text: the canonical number with the same value.
Number canonical(const Number& n) {
    View v = view(n);
    if (!v.node || v.node->text.empty()) return n;
    switch (v.k) {
    case Inner::Int: return Number::from_int(v.i);
    case Inner::Float: return make_float(v.d);
    case Inner::Big: return make_big(v.node->big);
    case Inner::Huge: return n;
    }
    return n;
}

} // namespace

namespace detail {
void destroy_number_node(Node* n) noexcept { delete static_cast<NumNode*>(n); }
} // namespace detail

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
    case Inner::Float: return std::nullopt;
    case Inner::Huge: break;
    }
    return std::nullopt;  // huge decimals are never expanded (see kMaxBigExponent)
}

Number number_from_big(const BigInt& v) {
    if (v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max())
        return Number::from_int(v.convert_to<std::int64_t>());
    return make_big(v);
}

NumberResult Number::parse(std::string_view text) {
    auto bad = [&] { return NumberResult::failure("invalid number literal: \"" + std::string(text) + "\""); };
    std::size_t p = 0, n = text.size();
    bool neg = false;
    if (p < n && text[p] == '-') {
        neg = true;
        ++p;
    }
    std::size_t int_begin = p;
    if (p >= n || text[p] < '0' || text[p] > '9') return bad();
    if (text[p] == '0') ++p;
    else
        while (p < n && text[p] >= '0' && text[p] <= '9') ++p;
    std::string_view int_digits = text.substr(int_begin, p - int_begin);
    std::string_view frac_digits;
    bool has_frac = false, has_exp = false;
    if (p < n && text[p] == '.') {
        has_frac = true;
        std::size_t b = ++p;
        while (p < n && text[p] >= '0' && text[p] <= '9') ++p;
        if (p == b) return bad();
        frac_digits = text.substr(b, p - b);
    }
    std::int64_t exp10 = 0;
    if (p < n && (text[p] == 'e' || text[p] == 'E')) {
        has_exp = true;
        ++p;
        bool eneg = false;
        if (p < n && (text[p] == '+' || text[p] == '-')) eneg = text[p++] == '-';
        std::size_t b = p;
        while (p < n && text[p] >= '0' && text[p] <= '9') {
            if (exp10 < (std::int64_t(1) << 40)) exp10 = exp10 * 10 + (text[p] - '0');
            ++p;
        }
        if (p == b) return bad();
        if (eneg) exp10 = -exp10;
    }
    if (p != n) return bad();

    // Fast path: plain integer that surely fits int64.
    if (!has_frac && !has_exp && int_digits.size() <= 18) {
        std::int64_t v = 0;
        for (char c : int_digits) v = v * 10 + (c - '0');
        if (neg && v == 0) {  // "-0": value 0, keep the text
            auto* node = new NumNode;
            node->text.assign(text);
            return NumberResult::success(make_node(node));
        }
        return NumberResult::success(from_int(neg ? -v : v));
    }

    // Significant digits D and exponent E with value = 0.D * 10^E.
    std::string all;
    all.reserve(int_digits.size() + frac_digits.size());
    all.append(int_digits);
    all.append(frac_digits);
    std::size_t lead = 0;
    while (lead < all.size() && all[lead] == '0') ++lead;
    std::string_view D(all);
    D.remove_prefix(lead);
    while (!D.empty() && D.back() == '0') D.remove_suffix(1);

    auto with_text = [&](Number canon) -> Number {
        if (canon.to_string() == text) return canon;
        View v = view(canon);
        auto* node = new NumNode;
        node->inner = v.k;
        node->i = v.i;
        node->d = v.d;
        if (v.k == Inner::Big) node->big = v.node->big;
        node->text.assign(text);
        return make_node(node);
    };

    if (D.empty()) return NumberResult::success(with_text(from_int(0)));

    std::int64_t E = static_cast<std::int64_t>(int_digits.size()) - static_cast<std::int64_t>(lead) + exp10;
    auto nd = static_cast<std::int64_t>(D.size());
    bool integral = E >= nd;

    if (integral && E <= kMaxBigExponent) {
        std::string digits(D);
        digits.append(static_cast<std::size_t>(E - nd), '0');
        if (neg) digits.insert(digits.begin(), '-');
        return NumberResult::success(with_text(from_decimal_integer(digits)));
    }
    if (!integral) {
        std::string z(text);
        double d = std::strtod(z.c_str(), nullptr);
        if (std::isfinite(d) && d != 0) return NumberResult::success(with_text(make_float(d)));
    }
    // Huge: exact decimal beyond what we expand or what a double holds.
    auto* node = new NumNode;
    node->inner = Inner::Huge;
    node->text.assign(text);
    node->dec.neg = neg;
    node->dec.digits.assign(D);
    node->dec.exp = E;
    node->d = double_of(View{Inner::Huge, 0, 0, node});
    return NumberResult::success(make_node(node));
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
    case Inner::Huge: return v.node->dec.digits.empty() ? 0 : (v.node->dec.neg ? -1 : 1);
    }
    return 0;
}

bool Number::is_huge() const noexcept { return rep_ == Rep::Heap && node_of(*this)->inner == Inner::Huge; }

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
    case Inner::Huge: out += "0"; return;  // unreachable: huge numbers keep text
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
    case Inner::Huge: return hash_dec(dec_of(v));
    }
    return 0;
}

int compare(const Number& a, const Number& b) noexcept {
    if (a.rep_ == Number::Rep::Int && b.rep_ == Number::Rep::Int)
        return a.i_ < b.i_ ? -1 : (a.i_ > b.i_ ? 1 : 0);
    View x = view(a), y = view(b);
    if (x.k == Inner::Huge || y.k == Inner::Huge) return cmp_dec(dec_of(x), dec_of(y));
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
    if (!std::isfinite(d)) return "0";
    if (d == 0) return "0";
    Dec dec = dec_of_double(d);
    std::string out;
    if (dec.neg) out.push_back('-');
    const std::string& dg = dec.digits;
    std::int64_t x = dec.exp - 1;  // exponent in d.ddd x 10^x
    if (x < -4 || x >= 6) {
        out.push_back(dg[0]);
        if (dg.size() > 1) {
            out.push_back('.');
            out.append(dg, 1);
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
        if (dg.size() <= ip) {
            out += dg;
            out.append(ip - dg.size(), '0');
        } else {
            out.append(dg, 0, ip);
            out.push_back('.');
            out.append(dg, ip);
        }
    } else {
        out += "0.";
        out.append(static_cast<std::size_t>(-x - 1), '0');
        out += dg;
    }
    return out;
}

// ---- arithmetic ---------------------------------------------------------------

namespace {

NumberResult too_large() { return NumberResult::failure("number too large"); }

NumberResult from_double_checked(double r) {
    if (!std::isfinite(r)) return too_large();
    return NumberResult::success(Number::from_double(r));
}

enum class Op { Add, Sub, Mul };

NumberResult arith(const Number& a, const Number& b, Op op) {
    View x = view(a), y = view(b);
    if (x.k == Inner::Int && y.k == Inner::Int) {
        std::int64_t r;
        bool ovf = op == Op::Add   ? __builtin_add_overflow(x.i, y.i, &r)
                   : op == Op::Sub ? __builtin_sub_overflow(x.i, y.i, &r)
                                   : __builtin_mul_overflow(x.i, y.i, &r);
        if (!ovf) return NumberResult::success(Number::from_int(r));
    }
    if (x.k == Inner::Huge || y.k == Inner::Huge) return too_large();
    if (x.k != Inner::Float && y.k != Inner::Float) {
        BigInt p = big_of(x), q = big_of(y);
        BigInt r = op == Op::Add ? BigInt(p + q) : op == Op::Sub ? BigInt(p - q) : BigInt(p * q);
        return NumberResult::success(number_from_big(r));
    }
    double p = double_of(x), q = double_of(y);
    return from_double_checked(op == Op::Add ? p + q : op == Op::Sub ? p - q : p * q);
}

} // namespace

NumberResult add(const Number& a, const Number& b) { return arith(a, b, Op::Add); }
NumberResult sub(const Number& a, const Number& b) { return arith(a, b, Op::Sub); }
NumberResult mul(const Number& a, const Number& b) { return arith(a, b, Op::Mul); }

NumberResult div(const Number& a, const Number& b) {
    if (b.is_zero()) return NumberResult::failure("divide by zero");
    View x = view(a), y = view(b);
    if (x.k == Inner::Int && y.k == Inner::Int) {
        if (!(y.i == -1 && x.i == std::numeric_limits<std::int64_t>::min()) && x.i % y.i == 0)
            return NumberResult::success(Number::from_int(x.i / y.i));
        if (y.i != -1) return from_double_checked(static_cast<double>(x.i) / static_cast<double>(y.i));
    }
    if (x.k == Inner::Huge || y.k == Inner::Huge) return too_large();
    if (x.k != Inner::Float && y.k != Inner::Float) {
        BigInt p = big_of(x), q = big_of(y);
        BigInt quo, r;
        boost::multiprecision::divide_qr(p, q, quo, r);
        if (r == 0) return NumberResult::success(number_from_big(quo));
        // Inexact: integer part exactly, fraction as double.
        double qd = quo.convert_to<double>();
        double rd = r.convert_to<double>() / q.convert_to<double>();
        if (!std::isfinite(rd)) rd = 0;
        return from_double_checked(qd + rd);
    }
    return from_double_checked(double_of(x) / double_of(y));
}

NumberResult rem(const Number& a, const Number& b) {
    if (!a.is_integer() || !b.is_integer()) return NumberResult::failure("modulo on floating-point number");
    if (b.is_zero()) return NumberResult::failure("modulo by zero");
    View x = view(a), y = view(b);
    if (x.k == Inner::Int && y.k == Inner::Int) {
        if (y.i == -1) return NumberResult::success(Number::from_int(0));
        return NumberResult::success(Number::from_int(x.i % y.i));
    }
    if (x.k == Inner::Huge || y.k == Inner::Huge) return too_large();
    BigInt p = big_of(x), q = big_of(y);
    return NumberResult::success(number_from_big(BigInt(p % q)));  // sign of dividend
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
        case Inner::Huge: break;
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
    case Inner::Huge:
        node->dec = v.node->dec;
        if (!node->dec.digits.empty()) node->dec.neg = !node->dec.neg;
        node->d = -v.node->d;
        break;
    }
    return make_node(node);
}

Number abs(const Number& a) { return a.sign() < 0 ? negate(a) : a; }

namespace {
template <class F>
Number integral_op(const Number& a, F f, int tiny_pos, int tiny_neg) {
    View v = view(a);
    switch (v.k) {
    case Inner::Int:
    case Inner::Big: return canonical(a);
    case Inner::Float: return Number::from_double(f(v.d));
    case Inner::Huge:
        if (is_integral_view(v)) return a;
        // Non-integral huge decimals are tiny (|x| < 1e-300).
        return Number::from_int(v.node->dec.neg ? tiny_neg : tiny_pos);
    }
    return a;
}
} // namespace

Number round(const Number& a) { return integral_op(a, [](double d) { return std::round(d); }, 0, 0); }
Number ceil(const Number& a) { return integral_op(a, [](double d) { return std::ceil(d); }, 1, 0); }
Number floor(const Number& a) { return integral_op(a, [](double d) { return std::floor(d); }, 0, -1); }

} // namespace gavel::runtime
