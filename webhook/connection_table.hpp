#pragma once
// A listener's open connections, held against its cap.
//
// Each connection tells the table when it starts waiting for its client (bytes
// of a TLS handshake, a request's header or body, the next request on a
// keep-alive connection) and when the server is busy with it instead. At the cap,
// a new connection takes the place of the one that has waited longest: idle and
// stalled connections cost their sender nothing to hold, so a flood of them
// would otherwise keep every well-behaved client out. Only when every
// connection is busy is the new one refused.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <vector>

namespace gavel::webhook {

// What the table asks of a connection; called from any thread.
class Connection {
public:
    virtual ~Connection() = default;
    // Closes the connection if it still waits for its client (it may have become busy since).
    virtual void close_if_waiting() = 0;
    // Graceful shutdown: closes the connection if no request is in progress.
    virtual void stop_if_idle() = 0;
};

class ConnectionTable {
    struct Entry {
        std::weak_ptr<Connection> connection;
        // steady_clock nanoseconds since the connection has waited for its client;
        // kBusy while the server works on it, kChosen once picked to make room.
        std::atomic<std::int64_t> waiting_since{kBusy};
    };

public:
    using Slot = std::list<Entry>::iterator;
    static constexpr std::int64_t kBusy = 0;
    static constexpr std::int64_t kChosen = -1;

    Slot add();
    // The connection behind a slot (once it is constructed).
    void attach(Slot slot, std::weak_ptr<Connection> connection);
    // Returns true when this closed a burst: the count fell to half its peak since the
    // last such report (freed connection memory is then worth returning to the system).
    bool remove(Slot slot);
    std::size_t size() const;

    // Lock-free, from the connection's own thread.
    static void waiting(Slot slot, std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now());
    static void busy(Slot slot) { slot->waiting_since.store(kBusy, std::memory_order_relaxed); }

    // The connection that has waited longest for its client and was not picked
    // before, or null when every connection is busy.
    std::shared_ptr<Connection> longest_waiting();
    std::vector<std::shared_ptr<Connection>> all() const;

private:
    mutable std::mutex mutex_;
    std::list<Entry> entries_;
    std::size_t size_ = 0;
    std::size_t peak_ = 0;
};

}  // namespace gavel::webhook
