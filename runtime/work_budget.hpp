#pragma once
// What bounds one evaluation's work: its deadline, a flag another thread may
// set to cancel it, and its memory limit (memory_meter.hpp). The evaluator
// asks between steps; code whose work or output grows with its input (the
// builtins, writers of large values) asks it every so often from inside its
// loops, cheaply: spend() reads the clock once per 64 Ki units of work.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "runtime/memory_meter.hpp"

namespace gavel::runtime {

struct WorkBudget {
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    const std::atomic<bool>* cancel = nullptr;  // set from another thread to cancel the evaluation
    MemoryBudget memory;                        // the evaluation's memory limit, if any

    // Whether the evaluation must stop now: cancelled, past its deadline, or past its memory limit.
    bool expired() const {
        return (cancel && cancel->load(std::memory_order_relaxed)) ||
               (deadline != std::chrono::steady_clock::time_point::max() &&
                std::chrono::steady_clock::now() > deadline) ||
               memory.exceeded();
    }

    // Counts `units` of work (about one element visited or built, or 16 bytes
    // written); each 64 Ki units asks expired(). True: stop now.
    bool spend(std::size_t units = 1) {
        work_ += units;
        if (work_ < next_check_) return false;
        next_check_ = work_ + kCheckEvery;
        return expired();
    }

    // Whether `bytes` more may be allocated within the memory limit; when not,
    // the limit counts as exceeded (the evaluation ends with its error), so a
    // builtin refuses an allocation that would cross it rather than make it.
    bool affords(std::size_t bytes) const { return memory.admits(bytes); }

    // Makes room for `more` bytes at the end of `text`, growing it as
    // std::string would (doubling) but only within the memory limit, and counts
    // the work. False: stop now (nothing was allocated).
    bool room(std::string& text, std::size_t more) {
        if (spend(1 + more / 16)) return false;
        const std::size_t need = text.size() + more;
        if (need <= text.capacity()) return true;
        const std::size_t grown = std::max(need, text.capacity() * 2);
        if (!affords(grown)) return false;
        text.reserve(grown);
        return true;
    }

private:
    static constexpr std::uint64_t kCheckEvery = 1u << 16;
    std::uint64_t work_ = 0;
    std::uint64_t next_check_ = kCheckEvery;
};

// std::sort asking `budget` as it compares (n log n comparisons of values that
// may be large). False when the evaluation must stop: the range then holds
// its elements in some order (std::sort leaves them valid when a comparison
// throws).
template <class It, class Less>
bool budgeted_sort(It first, It last, Less less, WorkBudget& budget) {
    struct Stop {};
    try {
        std::sort(first, last, [&](const auto& a, const auto& b) {
            if (budget.spend()) throw Stop{};
            return less(a, b);
        });
    } catch (const Stop&) {
        return false;
    }
    return true;
}

}  // namespace gavel::runtime
