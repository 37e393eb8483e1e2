#pragma once
// At most one log line a second for a condition that may repeat thousands of
// times a second (a connection flood, accept failing for want of descriptors):
// the log must not become the next thing to overflow.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

namespace gavel::webhook {

class LogThrottle {
public:
    // True at most once a second (thread-safe): the caller writes its line then.
    bool allow() {
        auto now =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
                .count();
        auto last = last_ms_.load(std::memory_order_relaxed);
        return now - last >= 1000 && last_ms_.compare_exchange_strong(last, now, std::memory_order_relaxed);
    }

private:
    std::atomic<std::int64_t> last_ms_{std::numeric_limits<std::int64_t>::min() / 2};
};

}  // namespace gavel::webhook
