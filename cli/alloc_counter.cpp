// Counting allocations for `gavel bench` (allocs/op, B/op), and the bytes each
// thread holds for evaluations' memory limits (runtime/memory_meter.hpp), in
// the gavel binary only.
//
// The global operator new/delete are replaced by versions that call malloc/free
// and add to two *thread-local* counters: no atomics and no shared cache line,
// so threads that allocate in parallel (gavel serve) do not contend; the cost
// is two thread-local additions per allocation (and malloc_usable_size for what
// is held: the size malloc really gave, known again at free without asking the
// caller). A thread reads its own counts: bench evaluates on the main thread,
// so that is what it measures.

#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <new>

#include "runtime/memory_meter.hpp"

namespace gavel::cli {

namespace {
thread_local std::uint64_t t_allocs = 0;
thread_local std::uint64_t t_bytes = 0;
thread_local std::int64_t t_held = 0;  // bytes malloc gave this thread, less what it freed

// What one allocation costs beyond its usable size: glibc's chunk header. A
// million small values (a builtin's result) hold that much more than their
// usable bytes: counted, the memory limit holds for the process's RSS too.
constexpr std::int64_t kChunkOverhead = sizeof(std::size_t);

void* held(void* p) noexcept {
    if (p) t_held += static_cast<std::int64_t>(malloc_usable_size(p)) + kChunkOverhead;
    return p;
}

void release(void* p) noexcept {
    if (!p) return;
    t_held -= static_cast<std::int64_t>(malloc_usable_size(p)) + kChunkOverhead;
    std::free(p);
}

std::int64_t held_bytes() noexcept { return t_held; }

// Evaluations' memory limits read the held bytes (set before main runs).
const bool g_metering = (runtime::set_thread_bytes_source(&held_bytes), true);

void* allocate(std::size_t size) {
    t_allocs += 1;
    t_bytes += size;
    if (size == 0) size = 1;
    return held(std::malloc(size));
}

void* allocate_aligned(std::size_t size, std::align_val_t align) {
    t_allocs += 1;
    t_bytes += size;
    std::size_t a = static_cast<std::size_t>(align);
    if (a < sizeof(void*)) a = sizeof(void*);
    void* p = nullptr;
    if (posix_memalign(&p, a, size == 0 ? 1 : size) != 0) return nullptr;
    return held(p);
}

void* allocate_or_throw(std::size_t size) {
    while (true) {
        if (void* p = allocate(size)) return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}

void* allocate_aligned_or_throw(std::size_t size, std::align_val_t align) {
    while (true) {
        if (void* p = allocate_aligned(size, align)) return p;
        std::new_handler handler = std::get_new_handler();
        if (!handler) throw std::bad_alloc();
        handler();
    }
}
}  // namespace

// Allocations and bytes requested so far by the calling thread.
void alloc_counts(std::uint64_t& allocs, std::uint64_t& bytes) noexcept {
    allocs = t_allocs;
    bytes = t_bytes;
}

}  // namespace gavel::cli

using gavel::cli::allocate;
using gavel::cli::allocate_aligned;
using gavel::cli::allocate_aligned_or_throw;
using gavel::cli::allocate_or_throw;
using gavel::cli::release;

void* operator new(std::size_t size) { return allocate_or_throw(size); }
void* operator new[](std::size_t size) { return allocate_or_throw(size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return allocate(size); }
void* operator new(std::size_t size, std::align_val_t align) { return allocate_aligned_or_throw(size, align); }
void* operator new[](std::size_t size, std::align_val_t align) { return allocate_aligned_or_throw(size, align); }
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return allocate_aligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return allocate_aligned(size, align);
}

void operator delete(void* p) noexcept { release(p); }
void operator delete[](void* p) noexcept { release(p); }
void operator delete(void* p, std::size_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { release(p); }
void operator delete(void* p, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { release(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { release(p); }
