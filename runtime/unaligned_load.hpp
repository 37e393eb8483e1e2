#pragma once
// A machine word read from any byte address (memcpy, which compilers turn
// into one load): the JSON reader, the string sort and key comparisons read
// string bytes a word at a time.

#include <cstring>

namespace gavel::runtime {

template <class Word>
inline Word load_unaligned(const char* p) noexcept {
    Word w;
    std::memcpy(&w, p, sizeof(w));
    return w;
}

}  // namespace gavel::runtime
