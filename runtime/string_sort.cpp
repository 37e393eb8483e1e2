#include "runtime/string_sort.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gavel::runtime {

namespace {

// A string's bytes past the shared prefix, where its Value is, and its first
// 8 tail bytes as a big-endian number (zero-padded): most comparisons are
// decided by that number alone, without a call to memcmp.
struct Tail {
    std::uint64_t head;
    const char* data;
    std::size_t size;
    std::uint32_t index;
};

std::uint64_t load8(const char* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

std::uint64_t big_endian_head(const char* p, std::size_t n) {
    unsigned char bytes[8] = {};
    if (n != 0) std::memcpy(bytes, p, std::min<std::size_t>(n, 8));  // an empty string's data may be null
    std::uint64_t v = 0;
    for (unsigned char b : bytes) v = (v << 8) | b;
    return v;
}

bool tail_less(const Tail& a, const Tail& b) {
    if (a.head != b.head) return a.head < b.head;
    std::size_t n = std::min(a.size, b.size);
    int c = n ? std::memcmp(a.data, b.data, n) : 0;
    return c != 0 ? c < 0 : a.size < b.size;
}

// How many leading bytes `s` shares with `first`, up to `limit`: 8 at a time.
std::size_t common_prefix(std::string_view s, std::string_view first, std::size_t limit) {
    std::size_t n = std::min(limit, s.size());
    std::size_t j = 0;
    while (j + 8 <= n && load8(s.data() + j) == load8(first.data() + j)) j += 8;
    while (j < n && s[j] == first[j]) ++j;
    return j;
}

}  // namespace

void sort_strings(std::vector<Value>& items) {
    auto less = [](const Value& a, const Value& b) { return a.as_string() < b.as_string(); };
    if (items.size() < 2 || std::is_sorted(items.begin(), items.end(), less)) return;
    if (items.size() < 16) {
        std::sort(items.begin(), items.end(), less);
        return;
    }
    // The prefix every string shares: the first string's, cut at each mismatch.
    std::string_view first = items[0].as_string();
    std::size_t prefix = first.size();
    for (std::size_t i = 1; i < items.size() && prefix > 0; ++i) prefix = common_prefix(items[i].as_string(), first, prefix);
    std::vector<Tail> tails;
    tails.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string_view s = items[i].as_string();
        const char* p = s.data() + prefix;
        std::size_t n = s.size() - prefix;
        tails.push_back({big_endian_head(p, n), p, n, static_cast<std::uint32_t>(i)});
    }
    std::sort(tails.begin(), tails.end(), tail_less);
    std::vector<Value> sorted;
    sorted.reserve(items.size());
    for (const Tail& t : tails) sorted.push_back(std::move(items[t.index]));
    items.swap(sorted);
}

}  // namespace gavel::runtime
