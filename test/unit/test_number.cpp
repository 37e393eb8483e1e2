#include "runtime/bigint.hpp"
#include "runtime/number.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace gavel::runtime;

namespace {

Number num(std::string_view text) {
    NumberResult r = Number::parse(text);
    REQUIRE_MESSAGE(r.ok, "parse failed: ", std::string(text), ": ", r.error);
    return r.value;
}

std::string str(const NumberResult& r) {
    REQUIRE_MESSAGE(r.ok, r.error);
    return r.value.to_string();
}

}  // namespace

TEST_CASE("number: parse small integers inline") {
    Number n = num("42");
    CHECK(n.rep() == Number::Rep::Int);
    CHECK(n.is_integer());
    std::int64_t v = 0;
    CHECK(n.to_int64(v));
    CHECK(v == 42);
    CHECK(num("-7").to_string() == "-7");
    CHECK(num("0").to_string() == "0");
    CHECK(num("9223372036854775807").rep() == Number::Rep::Int);
    CHECK(num("-9223372036854775808").rep() == Number::Rep::Int);
}

TEST_CASE("number: parse rejects bad text") {
    for (const char* bad :
         {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "1x", "0x10", "1.2.3", " 1", "NaN", "Infinity"}) {
        NumberResult r = Number::parse(bad);
        CHECK_MESSAGE(!r.ok, bad);
        CHECK(r.error.find("invalid number literal") != std::string::npos);
    }
}

TEST_CASE("number: big integers are exact") {
    Number a = num("123456789012345678901234567890");
    CHECK(a.rep() == Number::Rep::Heap);
    CHECK(a.is_integer());
    CHECK(a.to_string() == "123456789012345678901234567890");
    CHECK(a.literal().empty());  // canonical text, nothing extra stored
    std::int64_t out;
    CHECK_FALSE(a.to_int64(out));

    Number p128 = num("340282366920938463463374607431768211456");
    auto big = to_big_int(p128);
    REQUIRE(big.has_value());
    CHECK(*big == (BigInt(1) << 128));
    CHECK(num("28857836529306024611913") != num("28857836529306024611912"));
    CHECK(num("28857836529306024611912") < num("28857836529306024611913"));
    CHECK(num("9223372036854775808").rep() == Number::Rep::Heap);
    CHECK(num("18446744073709551614").to_string() == "18446744073709551614");
    CHECK(Number::from_uint(18446744073709551615ULL).to_string() == "18446744073709551615");
}

TEST_CASE("number: 2e308 and other out-of-double-range literals survive") {
    Number n = num("2e308");
    CHECK(n.to_string() == "2e308");
    CHECK(n.literal() == "2e308");
    CHECK(n.is_integer());
    CHECK(std::isinf(n.to_double()));
    CHECK(num("3e308") > n);
    CHECK(num("-2e308") < num("-1.7976931348623157e308"));
    CHECK(n == Number::from_decimal_integer("2" + std::string(308, '0')));
    CHECK(n.hash() == Number::from_decimal_integer("2" + std::string(308, '0')).hash());

    Number tiny = num("1e-400");  // below the smallest double
    CHECK(tiny.is_decimal());
    CHECK(tiny.to_string() == "1e-400");
    CHECK(tiny.sign() == 1);
    CHECK(tiny > Number::from_int(0));
    CHECK(tiny < num("5e-324"));
    CHECK_FALSE(tiny.is_integer());

    Number vast = num("1e5000");  // not expanded to 5001 digits
    CHECK(vast.is_decimal());
    CHECK(vast.is_integer());
    CHECK(vast > n);
    CHECK(vast.to_string() == "1e5000");
    CHECK(negate(vast).to_string() == "-1e5000");
    CHECK(negate(vast) < negate(n));
}

TEST_CASE("number: decimals") {
    Number a = num("1.5");
    CHECK(a.rep() == Number::Rep::Float);
    CHECK_FALSE(a.is_integer());
    CHECK(a.to_double() == 1.5);
    CHECK(a.to_string() == "1.5");
    CHECK(num("1e-3").to_double() == 0.001);
    CHECK(num("1e-3").to_string() == "1e-3");  // literal text kept
    CHECK(num("1.5893857701234e+09").to_string() == "1.5893857701234e+09");
    CHECK(num("1.5893857701234e+09").to_double() == 1589385770.1234);
    CHECK(num("66.66667").to_string() == "66.66667");
    CHECK(num("0.1").rep() == Number::Rep::Float);
}

TEST_CASE("number: integral decimals are integers that keep their text") {
    Number three = num("3.0");
    CHECK(three.is_integer());
    std::int64_t v = 0;
    CHECK(three.to_int64(v));
    CHECK(v == 3);
    CHECK(three.to_string() == "3.0");
    CHECK(three == Number::from_int(3));
    CHECK(three.hash() == Number::from_int(3).hash());
    CHECK(num("1e3") == Number::from_int(1000));
    CHECK(num("1E3").to_string() == "1E3");
    CHECK(num("1.5e1") == Number::from_int(15));
    CHECK(num("-0").is_zero());
    CHECK(num("0.0") == Number::from_int(0));
}

TEST_CASE("number: equality and hash across representations") {
    CHECK(num("1") == num("1.0"));
    CHECK(num("1").hash() == num("1.0").hash());
    CHECK(num("100") == num("1e2"));
    CHECK(num("100").hash() == num("1e2").hash());
    CHECK(Number::from_double(2.0) == Number::from_int(2));
    CHECK(Number::from_double(2.0).rep() == Number::Rep::Int);
    CHECK(num("1.5") == Number::from_double(1.5));
    CHECK(num("1.5").hash() == Number::from_double(1.5).hash());
    CHECK(num("1.5") != num("1.25"));
    // 2^64 written as integer vs computed as double.
    Number p64 = num("18446744073709551616");
    CHECK(p64 == Number::from_double(18446744073709551616.0));
    CHECK(p64.hash() == Number::from_double(18446744073709551616.0).hash());
}

TEST_CASE("number: ordering across representations") {
    CHECK(compare(num("1"), num("1.5")) < 0);
    CHECK(compare(num("2"), num("1.5")) > 0);
    CHECK(compare(num("-1.5"), num("-1")) < 0);
    CHECK(compare(num("9223372036854775807"), num("9223372036854775808")) < 0);
    CHECK(compare(num("9223372036854775808"), num("9.3e18")) < 0);
    CHECK(compare(num("-9223372036854775809"), num("-9223372036854775808")) < 0);
    CHECK(compare(num("18446744073709551617"), Number::from_double(18446744073709551616.0)) > 0);
    CHECK(compare(num("18446744073709551616.5"), num("18446744073709551617")) < 0);
    // int64 vs double near 2^63 must not overflow.
    CHECK(compare(Number::from_int(std::numeric_limits<std::int64_t>::max()), num("9.3e18")) < 0);
    CHECK(compare(num("0.1"), num("0.10")) == 0);
}

TEST_CASE("number: integer arithmetic is exact") {
    CHECK(str(add(num("18446744073709551617"), num("1"))) == "18446744073709551618");
    CHECK(str(sub(num("18446744073709551617"), num("1"))) == "18446744073709551616");
    CHECK(str(mul(num("18446744073709551617"), num("2"))) == "36893488147419103234");
    CHECK(str(add(num("123456789012345678901234567890"), num("1"))) == "123456789012345678901234567891");
    CHECK(str(sub(num("-18446744073709551617"), num("1"))) == "-18446744073709551618");
    CHECK(str(add(num("9223372036854775807"), num("1"))) == "9223372036854775808");
    CHECK(str(add(num("-9223372036854775808"), num("-1"))) == "-9223372036854775809");
    CHECK(str(mul(num("4294967296"), num("4294967296"))) == "18446744073709551616");
    // Back into int64 range.
    NumberResult back = sub(num("9223372036854775808"), num("1"));
    REQUIRE(back.ok);
    CHECK(back.value.rep() == Number::Rep::Int);
    CHECK(str(add(num("2"), num("3"))) == "5");
}

TEST_CASE("number: float arithmetic normalises integral results") {
    CHECK(str(add(num("1.5"), num("2.5"))) == "4");
    CHECK(add(num("1.5"), num("2.5")).value.rep() == Number::Rep::Int);
    CHECK(str(add(num("1"), num("2.5"))) == "3.5");
    CHECK(str(mul(num("2.5"), num("2"))) == "5");
    CHECK(str(mul(num("1.5"), num("2"))) == "3");
    CHECK(str(add(num("0.1"), num("0.2"))) == "0.3");
    CHECK(str(div(num("1"), num("4"))) == "0.25");
    CHECK(str(div(num("1234567.5"), num("1"))) == "1.2345675e+06");
    CHECK(str(div(num("1"), num("100000"))) == "1e-05");
}

TEST_CASE("number: division and remainder") {
    CHECK(str(div(num("6"), num("3"))) == "2");
    CHECK(str(div(num("7"), num("2"))) == "3.5");
    // Beyond int64 a quotient is a 64-bit float's (2^65 + 2 rounds to 2^65), as in OPA.
    CHECK(str(div(num("36893488147419103234"), num("2"))) == "18446744073709551616");
    CHECK(str(div(num("-9223372036854775808"), num("-1"))) == "9223372036854775808");
    NumberResult z = div(num("1"), num("0"));
    CHECK_FALSE(z.ok);
    CHECK(z.error == "divide by zero");
    CHECK(div(num("1.5"), num("0.0")).error == "divide by zero");
    CHECK(div(num("18446744073709551617"), num("0")).error == "divide by zero");

    CHECK(str(rem(num("7"), num("4"))) == "3");
    CHECK(str(rem(num("-7"), num("4"))) == "-3");
    CHECK(str(rem(num("10"), num("18446744073709551616"))) == "10");
    CHECK(str(rem(num("5"), num("55340232221128654848"))) == "5");
    CHECK(str(rem(num("7"), num("340282366920938463463374607431768211456"))) == "7");
    CHECK(str(rem(num("100"), num("-18446744073709551616"))) == "100");
    CHECK(str(rem(num("18446744073709551617"), num("18446744073709551616"))) == "1");
    CHECK(str(rem(num("10"), num("18446744073709551617"))) == "10");
    CHECK(str(rem(num("-9223372036854775808"), num("-1"))) == "0");
    CHECK(str(rem(num("9.0"), num("4"))) == "1");
    CHECK(rem(num("7"), num("0")).error == "modulo by zero");
    CHECK(rem(num("1.1"), num("1")).error == "modulo on floating-point number");
}

TEST_CASE("number: negate abs round ceil floor") {
    CHECK(negate(num("5")).to_string() == "-5");
    CHECK(negate(num("-9223372036854775808")).to_string() == "9223372036854775808");
    CHECK(negate(num("18446744073709551616")).to_string() == "-18446744073709551616");
    CHECK(negate(num("1e-3")).to_string() == "-1e-3");
    CHECK(negate(num("-2e308")).to_string() == "2e308");
    CHECK(abs(num("-10")).value == Number::from_int(10));
    // Beyond int64, through a 64-bit float as OPA does (2^64 + 1 rounds to 2^64).
    CHECK(str(abs(num("-18446744073709551617"))) == "18446744073709551616");
    CHECK(str(abs(num("-1.5"))) == "1.5");
    CHECK(str(abs(num("101.0"))) == "101");  // literal text dropped
    CHECK(str(abs(num("-0"))) == "0");
    CHECK(str(round(num("2.5"))) == "3");
    CHECK(str(round(num("-2.5"))) == "-3");
    CHECK(str(round(num("2.4"))) == "2");
    CHECK(str(round(num("-0.4"))) == "0");
    CHECK(str(round(num("3.0"))) == "3");  // literal text dropped
    CHECK(str(ceil(num("1.2"))) == "2");
    CHECK(str(ceil(num("1e3"))) == "1000");
    CHECK(str(floor(num("-1.2"))) == "-2");
    CHECK(str(floor(num("2.0"))) == "2");
    CHECK(str(ceil(num("-1.5"))) == "-1");
    CHECK(str(ceil(num("1e-400"))) == "1");
    // OPA truncates first and corrects by the sign of the truncation, which is 0 here.
    CHECK(str(floor(num("-0.5"))) == "0");
    CHECK(str(ceil(num("-0.5"))) == "1");
    CHECK(str(floor(num("-1e-400"))) == "0");
}

TEST_CASE("number: OPA's float arithmetic, digit for digit") {
    // Each expected text is what OPA 1.7.1 prints.
    CHECK(str(mul(num("-6"), num("0.2"))) == "-1.2");
    CHECK(str(div(num("1"), num("3"))) == "0.33333333333333333334");
    CHECK(str(div(num("2"), num("3"))) == "0.6666666666666666667");
    CHECK(str(div(num("10"), num("4"))) == "2.5");
    CHECK(str(mul(num("1e21"), num("1e21"))) == "1" + std::string(42, '0'));
    CHECK(str(mul(num("1e-300"), num("1e-300"))) == "9.9999999999999999994e-601");
    CHECK(str(add(num("1e6"), num("0.5"))) == "1.0000005e+06");
    CHECK(str(sub(num("1"), num("0.9"))) == "0.10000000000000000002");
    CHECK(str(mul(num("100"), num("1.1"))) == "110");
    CHECK(str(mul(num("3.3"), num("3"))) == "9.9");
    CHECK(str(mul(num("123456.789e3"), num("1"))) == "123456789");
    // Integers spelled as floats compute as floats: the sign of a zero shows.
    CHECK(str(mul(num("-1"), num("0.0"))) == "-0");
    CHECK(str(mul(num("-0"), num("1.0"))) == "-0");
    CHECK(str(div(num("0"), num("-5"))) == "-0");
    CHECK(str(sub(num("0"), num("0.0"))) == "0");
    CHECK(str(add(num("1e400"), num("1"))) == "1" + std::string(400, '0'));
    // 0.1 + 0.2 prints "0.3", which is 0.3; a literal that is not the same decimal is not.
    CHECK(add(num("0.1"), num("0.2")).value == num("0.3"));
    CHECK(num("0.30000000000000001") != num("0.3"));
    CHECK(num("0.30000000000000001") > num("0.3"));
    CHECK(num("0.30000000000000001").is_decimal());
    // Results that are no double's shortest text stay exact.
    Number third = div(num("1"), num("3")).value;
    CHECK(third.is_decimal());
    CHECK(third != Number::from_double(1.0 / 3));
    CHECK(third.hash() == num("0.33333333333333333334").hash());
    CHECK(third == num("0.33333333333333333334"));
}

TEST_CASE("number: results too large to print are errors, big decimals compute") {
    CHECK(str(add(num("1e5000"), num("1"))) == "1" + std::string(5000, '0'));
    NumberResult r = mul(num("1e100000"), num("10"));
    CHECK_FALSE(r.ok);
    CHECK(r.error == "number too large");
    CHECK(str(add(num("2e308"), num("0"))) == "2" + std::string(308, '0'));
}

TEST_CASE("number: sum and product of mixed numbers accumulate in one 64-bit float") {
    // What aggregates.cpp does for sum([3, 3.14159, 0.1]) and product([3, 3.14159, 0.1]);
    // the texts are OPA 1.7.1's.
    Number s = Number::from_int(0), p = Number::from_int(1);
    for (auto x : {"3", "3.14159", "0.1"}) {
        s = add_as_floats(s, num(x)).value;
        p = mul_as_floats(p, num(x)).value;
    }
    CHECK(s.to_string() == "6.2415899999999999996");
    CHECK(p.to_string() == "0.94247700000000000003");
    CHECK(str(add_as_floats(num("1.5"), num("2.5"))) == "4");
}

TEST_CASE("number: integers of any size compute exactly (OPA's newest release)") {
    // OPA 1.7.1 rounds these to 64-bit floats (18446744073709551616, 36893488147419103230).
    CHECK(str(add(num("18446744073709551617"), num("1"))) == "18446744073709551618");
    CHECK(str(mul(num("18446744073709551617"), num("2"))) == "36893488147419103234");
    CHECK(str(mul(num("123456789123"), num("987654321987"))) == "121932631355968601347401");
    CHECK(str(add(num("9223372036854775807"), num("1"))) == "9223372036854775808");
    // OPA 1.7.1 checks the divisor's low 64 bits: 10 % 2^64 was "modulo by zero" there.
    CHECK(str(rem(num("10"), num("18446744073709551616"))) == "10");
    CHECK(str(rem(num("-1747000000000"), num("18446744073709551617"))) == "-1747000000000");
    // An integral float result is an integer: 1e100 / 9.1919e39 is no zero divisor.
    Number q = div(num("1e100"), num("9.1919e39")).value;
    CHECK(q.is_integer());
    CHECK(str(rem(num("1740700000000"), q)) == "1740700000000");
}

TEST_CASE("number: no operand or result makes an operation take unbounded time or memory") {
    // Beyond the bounds of big_float.hpp an operation is "number too large" (OPA takes tens of
    // seconds over 2e-400000, or would print 400,000 digits), never a hang or an exception.
    for (auto [a, b] : {std::pair<std::string, std::string>{"1e-400000", "2"},
                        {"1e400000", "2"},
                        {"1", "1e-400000"},
                        {"1e-999999999", "1.5"},
                        {"1e999999999999999", "1.5"}}) {
        CAPTURE(a);
        CAPTURE(b);
        using Binary = NumberResult (*)(const Number&, const Number&);
        for (Binary op : {Binary(&add), Binary(&sub), Binary(&mul), Binary(&gavel::runtime::div)}) {
            NumberResult r = op(num(a), num(b));
            CHECK_FALSE(r.ok);
            CHECK(r.error == "number too large");
        }
    }
    CHECK(mul(num("1e-30000"), num("1e-30000")).error == "number too large");  // 1e-60000
    CHECK(str(add(num("1e-30000"), num("1e-30000"))) == "2e-30000");
    using Unary = NumberResult (*)(const Number&);
    for (Unary op : {Unary(&gavel::runtime::abs), Unary(&gavel::runtime::round), Unary(&gavel::runtime::ceil),
                     Unary(&gavel::runtime::floor)}) {
        NumberResult r = op(num("1e-400000"));
        CHECK((!r.ok || r.value.is_integer()));
    }
    CHECK_FALSE(abs(num("1e-400000")).ok);
    CHECK(str(floor(num("1e-400000"))) == "0");
    CHECK(str(round(num("-1e-400000"))) == "0");
    CHECK(str(ceil(num("1e-400000"))) == "1");
    CHECK(str(ceil(num("-1e-400000"))) == "1");  // OPA's ceil (see number.hpp)
    // Any exponent reads as a number (JSON input may hold one), printed as written.
    Number vast = num("1e99999999999999999999");
    CHECK(vast.to_string() == "1e99999999999999999999");
    CHECK(vast > num("1e400000"));
    CHECK(num("-1e-99999999999999999999") < Number::from_int(0));
    CHECK(num("-1e-99999999999999999999") > num("-1e-400000"));
    CHECK(mul(vast, num("2")).error == "number too large");
    // Many digits: read up to a bound, refused beyond it.
    std::string many = "0." + std::string(20000, '3');
    CHECK_FALSE(mul(num(many), num("1.5")).ok);
    std::string some = "0." + std::string(5000, '3');
    CHECK(str(mul(num(some), num("3"))) == "1");
    // Division by a tiny number within bounds is a value.
    CHECK(str(div(num("1"), num("1e-300"))) == "1" + std::string(300, '0'));
    CHECK(str(mul(num("1e-300"), num("1e-300"))) == "9.9999999999999999994e-601");
}

TEST_CASE("number: format_double shortest round trip, Go 'g' layout") {
    CHECK(format_double(0.1) == "0.1");
    CHECK(format_double(-0.5) == "-0.5");
    CHECK(format_double(123456.5) == "123456.5");
    CHECK(format_double(1234567.5) == "1.2345675e+06");
    CHECK(format_double(0.0001) == "0.0001");
    CHECK(format_double(0.00001) == "1e-05");
    CHECK(format_double(1.5e-300) == "1.5e-300");
    CHECK(format_double(1e21) == "1e+21");
    double x = 0.1 + 0.2;
    CHECK(std::stod(format_double(x)) == x);
}
