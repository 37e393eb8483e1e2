#include "runtime/memory_meter.hpp"

#include <atomic>
#include <limits>

namespace gavel::runtime {

namespace {
std::atomic<ThreadBytesSource> g_source{nullptr};
}

void set_thread_bytes_source(ThreadBytesSource source) noexcept { g_source.store(source, std::memory_order_release); }

ThreadBytesSource thread_bytes_source() noexcept { return g_source.load(std::memory_order_acquire); }

void MemoryBudget::start(std::uint64_t limit) noexcept {
    limit_ = limit;
    source_ = limit > 0 && limit < static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                  ? thread_bytes_source()
                  : nullptr;
    baseline_ = source_ ? source_() : 0;
    tripped_ = false;
}

}  // namespace gavel::runtime
