#include "webhook/memory.hpp"

#include <atomic>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gavel::webhook {

namespace {
std::atomic<bool> requested{false};
}

void tune_allocator_for_serving() {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    mallopt(M_TRIM_THRESHOLD, 4 << 20);
#endif
}

void request_memory_release() { requested.store(true, std::memory_order_relaxed); }

void release_memory_if_requested() {
    if (!requested.exchange(false, std::memory_order_relaxed)) return;
#if defined(__GLIBC__)
    malloc_trim(0);  // every arena, including free pages in the middle of the heap
#endif
}

}  // namespace gavel::webhook
