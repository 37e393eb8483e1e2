#include "runtime/string_sort.hpp"

#include "runtime/unaligned_load.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace gavel::runtime {

namespace {

// A string's first 8 bytes past the shared prefix as a big-endian number
// (zero-padded), and where the string is: most comparisons are decided by
// `head` alone, and sorting 16-byte keys moves less than sorting Values.
struct Key {
    std::uint64_t head;
    std::uint32_t index;
    std::uint32_t pad_ = 0;
};

std::uint64_t big_endian_head(std::string_view s) {
    std::uint64_t v = 0;
    if (!s.empty()) std::memcpy(&v, s.data(), std::min<std::size_t>(s.size(), 8));  // empty data may be null
    return __builtin_bswap64(v);
}

// How many leading bytes `s` shares with `first`, up to `limit`: 8 at a time.
std::size_t common_prefix(std::string_view s, std::string_view first, std::size_t limit) {
    std::size_t n = std::min(limit, s.size());
    std::size_t j = 0;
    while (j + 8 <= n && load_unaligned<std::uint64_t>(s.data() + j) == load_unaligned<std::uint64_t>(first.data() + j))
        j += 8;
    while (j < n && s[j] == first[j]) ++j;
    return j;
}

// Least significant byte first, one stable counting pass per byte of the
// head; a byte all keys share needs no pass.
void radix_sort_by_head(std::vector<Key>& keys) {
    std::array<std::array<std::uint32_t, 256>, 8> counts{};
    for (const Key& k : keys)
        for (unsigned b = 0; b < 8; ++b) ++counts[b][(k.head >> (8 * b)) & 0xff];
    std::vector<Key> buffer(keys.size());
    for (unsigned b = 0; b < 8; ++b) {
        auto& count = counts[b];
        if (count[(keys[0].head >> (8 * b)) & 0xff] == keys.size()) continue;
        std::uint32_t offset = 0;
        for (auto& c : count) {
            std::uint32_t n = c;
            c = offset;
            offset += n;
        }
        for (const Key& k : keys) buffer[count[(k.head >> (8 * b)) & 0xff]++] = k;
        keys.swap(buffer);
    }
}

}  // namespace

void sort_unique_strings(std::vector<Value>& items) {
    auto less = [](const Value& a, const Value& b) { return a.as_string() < b.as_string(); };
    auto equal = [](const Value& a, const Value& b) { return a.as_string() == b.as_string(); };
    if (items.size() < 16) {
        if (!std::is_sorted(items.begin(), items.end(), less)) std::sort(items.begin(), items.end(), less);
        items.erase(std::unique(items.begin(), items.end(), equal), items.end());
        return;
    }
    // The prefix every string shares: the first string's, cut at each mismatch.
    std::string_view first = items[0].as_string();
    std::size_t prefix = first.size();
    for (std::size_t i = 1; i < items.size() && prefix > 0; ++i)
        prefix = common_prefix(items[i].as_string(), first, prefix);
    std::vector<std::string_view> tails;
    std::vector<Key> keys;
    tails.reserve(items.size());
    keys.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string_view tail = items[i].as_string().substr(prefix);
        tails.push_back(tail);
        keys.push_back({big_endian_head(tail), static_cast<std::uint32_t>(i)});
    }
    // Equal heads: the tails decide (their first 8 bytes are equal but for
    // padding, so they are compared whole).
    auto key_less = [&](const Key& a, const Key& b) {
        return a.head != b.head ? a.head < b.head : tails[a.index] < tails[b.index];
    };
    if (!std::is_sorted(keys.begin(), keys.end(), key_less)) {
        if (keys.size() >= 64) {
            // Many keys: by head without comparisons (their order is as good
            // as random, so a comparison sort mispredicts every other branch),
            // then runs of equal heads by their tails.
            radix_sort_by_head(keys);
            for (std::size_t i = 0; i < keys.size();) {
                std::size_t j = i + 1;
                while (j < keys.size() && keys[j].head == keys[i].head) ++j;
                if (j - i > 1)
                    std::sort(keys.begin() + static_cast<std::ptrdiff_t>(i),
                              keys.begin() + static_cast<std::ptrdiff_t>(j), key_less);
                i = j;
            }
        } else {
            std::sort(keys.begin(), keys.end(), key_less);
        }
    }
    std::vector<Value> sorted;
    sorted.reserve(items.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const Key& k = keys[i];
        if (i > 0 && k.head == keys[i - 1].head && tails[k.index] == tails[keys[i - 1].index]) continue;
        sorted.push_back(std::move(items[k.index]));
    }
    items.swap(sorted);
}

}  // namespace gavel::runtime
