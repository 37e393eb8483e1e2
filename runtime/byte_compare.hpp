#pragma once
// Equality and order of byte strings, the short ones (object keys, names, image
// references) a word at a time without a call to memcmp: sets of objects are sorted
// by comparing such strings pairwise, and object lookups compare keys.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "runtime/unaligned_load.hpp"

namespace gavel::runtime {

// Two overlapping loads cover any length from 4 to 16.
inline bool same_bytes(std::string_view a, std::string_view b) noexcept {
    std::size_t n = a.size();
    if (n != b.size()) return false;
    const char* x = a.data();
    const char* y = b.data();
    if (n >= 8 && n <= 16)
        return load_unaligned<std::uint64_t>(x) == load_unaligned<std::uint64_t>(y) &&
               load_unaligned<std::uint64_t>(x + n - 8) == load_unaligned<std::uint64_t>(y + n - 8);
    if (n >= 4 && n < 8)
        return load_unaligned<std::uint32_t>(x) == load_unaligned<std::uint32_t>(y) &&
               load_unaligned<std::uint32_t>(x + n - 4) == load_unaligned<std::uint32_t>(y + n - 4);
    return a == b;
}

// -1, 0 or 1 as the bytes (unsigned) order, the shorter first when one is a prefix.
inline int compare_bytes(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = std::min(a.size(), b.size());
    const char* x = a.data();
    const char* y = b.data();
    // Object keys mostly differ in their first byte: decided at once.
    if (n && x[0] != y[0]) return static_cast<unsigned char>(x[0]) < static_cast<unsigned char>(y[0]) ? -1 : 1;
    if (n <= 32) {
        std::size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            auto p = load_unaligned<std::uint64_t>(x + i), q = load_unaligned<std::uint64_t>(y + i);
            if (p != q) return __builtin_bswap64(p) < __builtin_bswap64(q) ? -1 : 1;  // the first differing byte
        }
        for (; i < n; ++i)
            if (x[i] != y[i]) return static_cast<unsigned char>(x[i]) < static_cast<unsigned char>(y[i]) ? -1 : 1;
    } else if (int c = std::memcmp(x, y, n)) {
        return c < 0 ? -1 : 1;
    }
    return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

}  // namespace gavel::runtime
