#pragma once
// How deep this thread may still recurse. The evaluator recurses once per
// body expression and per nested rule, so a long enough body or rule chain
// could exhaust any stack; it compares the current stack position with this
// floor and stops with an error instead of crashing. The floor leaves a
// margin for what runs below the check (builtins, JSON, regular expressions).

#include <cstddef>
#include <cstdint>

namespace gavel::runtime {

// The margin kept free below the floor.
inline constexpr std::size_t kStackMargin = 256 * 1024;

// The lowest stack address this thread may reach before a deep evaluation
// must stop (the stack grows down); 0 when it cannot be known. Computed once per thread.
uintptr_t stack_floor();

// The size of this thread's stack, 0 when unknown (for messages).
std::size_t stack_size();

inline uintptr_t stack_position() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

}  // namespace gavel::runtime
