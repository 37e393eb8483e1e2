#pragma once
// boost::container::small_vector, included through here so that its one GCC 12
// false positive is silenced where it arises and nowhere else: moving a vector
// whose elements are inline memmoves `size()` elements, a bound GCC 12 cannot
// tie to the inline capacity once inlined (-Wstringop-overread "reading between
// N+1 and 9223372036854775800 bytes from a region of size N").

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
#include <boost/container/small_vector.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
