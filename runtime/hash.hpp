// Small, fast non-cryptographic hashing used by Value::hash() and Number::hash().
// Not DoS-resistant by design: hashes feed in-process caches and indexes, not
// attacker-sized hash tables keyed by untrusted input without bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gavel::runtime {

// splitmix64 finaliser: a good avalanche for 64-bit integers.
inline std::uint64_t hash_mix(std::uint64_t x) noexcept {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

inline std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t v) noexcept {
    return hash_mix(seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)));
}

// Eight bytes at a time, multiply-mix; length folded in.
inline std::uint64_t hash_bytes(const void* data, std::size_t n) noexcept {
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint64_t h = 0x27d4eb2f165667c5ULL ^ (n * 0x9e3779b97f4a7c15ULL);
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        h = (h ^ hash_mix(w)) * 0xff51afd7ed558ccdULL;
        p += 8;
        n -= 8;
    }
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h ^= hash_mix(w ^ n);
    return hash_mix(h);
}

}  // namespace gavel::runtime
