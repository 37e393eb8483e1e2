// Big integer bridge for Number. Kept out of number.hpp so that the (large)
// Boost.Multiprecision headers are only compiled where big integers are used.
#pragma once

#include "runtime/number.hpp"

#include <boost/multiprecision/cpp_int.hpp>
#include <optional>

namespace gavel::runtime {

using BigInt = boost::multiprecision::cpp_int;

// Exact integer value; nullopt when `n` is not integral or is a huge decimal
// whose exponent exceeds kMaxBigExponent.
std::optional<BigInt> to_big_int(const Number& n);

// Normalising constructor: values in int64 range become inline integers.
Number number_from_big(const BigInt& v);

// The decimal text ("-123"), compiled in one place: inlined into some callers, Boost's str()
// trips GCC 12's -Wrestrict false positive (GCC PR 105329).
std::string big_decimal_text(const BigInt& v);

}  // namespace gavel::runtime
