#pragma once
// How many bytes the calling thread holds, for programs that count their
// allocations (the gavel binary does, in its operator new and delete:
// cli/alloc_counter.cpp). An evaluation with a memory limit
// (EvalOptions::max_memory) compares what its thread holds against what it held
// when it started. A program that counts nothing has no source, and its
// evaluations no memory limit: the embedder decides whether to pay for counting.

#include <cstdint>

namespace gavel::runtime {

// The calling thread's bytes allocated and not yet freed (may go negative when
// it frees what another thread allocated: only differences mean something).
using ThreadBytesSource = std::int64_t (*)() noexcept;

void set_thread_bytes_source(ThreadBytesSource source) noexcept;
ThreadBytesSource thread_bytes_source() noexcept;

// A budget over one thread's held bytes, from the moment it is started.
class MemoryBudget {
public:
    // No source or a limit of 0: never exceeded.
    void start(std::uint64_t limit) noexcept;
    // Once exceeded, stays so: the evaluation ends, and what reports why may ask
    // after the allocation that crossed the limit has been freed.
    bool exceeded() const noexcept {
        if (!tripped_ && source_ && source_() - baseline_ > static_cast<std::int64_t>(limit_)) tripped_ = true;
        return tripped_;
    }
    // Whether `bytes` more may be allocated within the limit. When not, the
    // budget counts as exceeded from now on, as if they had been: a builtin asks
    // before a large allocation rather than cross the limit by making it.
    bool admits(std::uint64_t bytes) const noexcept {
        if (tripped_) return false;
        if (!source_) return true;
        if (bytes > limit_ || source_() - baseline_ > static_cast<std::int64_t>(limit_ - bytes)) tripped_ = true;
        return !tripped_;
    }
    std::uint64_t limit() const noexcept { return limit_; }

private:
    ThreadBytesSource source_ = nullptr;
    std::int64_t baseline_ = 0;
    std::uint64_t limit_ = 0;
    mutable bool tripped_ = false;
};

}  // namespace gavel::runtime
