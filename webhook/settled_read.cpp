#include "webhook/settled_read.hpp"

#include <algorithm>
#include <thread>

namespace gavel::webhook {

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

bool wait_until_settled(ReadingStamp first, const std::function<ReadingStamp()>& read_again,
                        const SettleTiming& timing) {
    using namespace std::chrono;
    const auto deadline = steady_clock::now() + timing.limit;
    const std::int64_t quiet_ns = duration_cast<nanoseconds>(timing.quiet).count();
    ReadingStamp previous = std::move(first);
    while (true) {
        // Wait `settle`, and longer if a file changed less than `quiet` ago.
        nanoseconds wait = timing.settle;
        const std::int64_t since_change = now_ns() - previous.newest_change_ns;
        if (since_change >= 0 && since_change < quiet_ns) wait = std::max(wait, nanoseconds(quiet_ns - since_change));
        if (steady_clock::now() + wait > deadline) return false;
        std::this_thread::sleep_for(wait);

        const std::int64_t started = now_ns();
        ReadingStamp next = read_again();
        const std::int64_t finished = now_ns();
        // A change time after the reading finished is a clock that went back or a
        // skewed file server, not a write: such a stamp says nothing, the hashes decide.
        const bool quiet = next.newest_change_ns <= started - quiet_ns || next.newest_change_ns > finished;
        if (next.hash == previous.hash && quiet) return true;
        previous = std::move(next);
    }
}

std::string still_changing_message(const SettleTiming& timing) {
    return "the files kept changing for " + std::to_string(timing.limit.count()) +
           " ms (written in place?): nothing was loaded";
}

}  // namespace gavel::webhook
