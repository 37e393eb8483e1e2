#pragma once
// Deep programs need deep stacks. The parser accepts as much nesting as OPA
// does (thousands of levels), and the compiler stages, type checker,
// evaluator, formatter and AST JSON all walk terms recursively, so a process
// gives every thread it starts a large stack: the memory is only reserved,
// and pages are touched only as deep as a program actually goes.

#include <cstddef>
#include <functional>

namespace gavel::runtime {

// The stack every gavel thread gets: room for the parser's limits at a few
// KiB per level, even in sanitizer builds whose frames are several times larger.
#if defined(__SANITIZE_ADDRESS__)
// AddressSanitizer's frames (redzones around every local) are several times larger.
inline constexpr std::size_t kLargeStackBytes = std::size_t{4} << 30;
#else
inline constexpr std::size_t kLargeStackBytes = std::size_t{512} << 20;
#endif

// Makes threads created from now on (std::thread included) start with
// `bytes` of stack. Returns false when the platform refuses.
bool use_large_thread_stacks(std::size_t bytes = kLargeStackBytes);

// Runs `work` on a new thread with `bytes` of stack and returns its result;
// runs it on the calling thread when no such thread can be started.
int run_on_large_stack(const std::function<int()>& work, std::size_t bytes = kLargeStackBytes);

}  // namespace gavel::runtime
