#pragma once
// How deeply a value nests, measured without recursion. Values deeper than a
// few tens of thousands of levels would overflow the stack of the recursive
// code that prints, compares and frees them; builtins that can make a value
// deeper than their operands (json.patch) refuse results past a limit.

#include <cstddef>

#include "runtime/value.hpp"

namespace gavel::runtime {

// Nesting levels a built value may have: twice what the JSON and YAML readers
// accept from outside (runtime/limits.hpp), and far below what overflows an 8 MiB
// stack even in a sanitizer build (whose frames are several times larger).
inline constexpr std::size_t kMaxBuiltDepth = 2'000;

// Whether `v` has more than `limit` levels of arrays, objects and sets (a
// scalar has 0; [1] has 1). Stops at the first path that crosses the limit.
bool deeper_than(const Value& v, std::size_t limit);

}  // namespace gavel::runtime
