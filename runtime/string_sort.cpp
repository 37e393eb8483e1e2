#include "runtime/string_sort.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

namespace gavel::runtime {

namespace {

// A string's bytes past the shared prefix, and where its Value is.
struct Tail {
    const char* data;
    std::size_t size;
    std::uint32_t index;
};

bool tail_less(const Tail& a, const Tail& b) {
    std::size_t n = std::min(a.size, b.size);
    int c = n ? std::memcmp(a.data, b.data, n) : 0;
    return c != 0 ? c < 0 : a.size < b.size;
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
    for (std::size_t i = 1; i < items.size() && prefix > 0; ++i) {
        std::string_view s = items[i].as_string();
        std::size_t n = std::min(prefix, s.size());
        std::size_t j = 0;
        while (j < n && s[j] == first[j]) ++j;
        prefix = j;
    }
    std::vector<Tail> tails;
    tails.reserve(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string_view s = items[i].as_string();
        tails.push_back({s.data() + prefix, s.size() - prefix, static_cast<std::uint32_t>(i)});
    }
    std::sort(tails.begin(), tails.end(), tail_less);
    std::vector<Value> sorted;
    sorted.reserve(items.size());
    for (const Tail& t : tails) sorted.push_back(std::move(items[t.index]));
    items.swap(sorted);
}

}  // namespace gavel::runtime
