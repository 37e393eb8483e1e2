#include "webhook/connection_table.hpp"

namespace gavel::webhook {

namespace {
// A burst worth giving memory back for: smaller swings are ordinary traffic.
constexpr std::size_t kBurst = 64;
}  // namespace

ConnectionTable::Slot ConnectionTable::add() {
    std::lock_guard lock(mutex_);
    auto slot = entries_.emplace(entries_.end());
    ++size_;
    if (size_ > peak_) peak_ = size_;
    return slot;
}

void ConnectionTable::attach(Slot slot, std::weak_ptr<Connection> connection) {
    std::lock_guard lock(mutex_);
    slot->connection = std::move(connection);
}

bool ConnectionTable::remove(Slot slot) {
    std::lock_guard lock(mutex_);
    entries_.erase(slot);
    --size_;
    if (peak_ >= size_ + kBurst && size_ <= peak_ / 2) {
        peak_ = size_;
        return true;
    }
    return false;
}

std::size_t ConnectionTable::size() const {
    std::lock_guard lock(mutex_);
    return size_;
}

void ConnectionTable::waiting(Slot slot, std::chrono::steady_clock::time_point since) {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(since.time_since_epoch()).count();
    slot->waiting_since.store(ns > 0 ? ns : 1, std::memory_order_relaxed);
}

std::shared_ptr<Connection> ConnectionTable::longest_waiting() {
    std::lock_guard lock(mutex_);
    for (;;) {
        Entry* oldest = nullptr;
        std::int64_t oldest_since = 0;
        for (auto& e : entries_) {
            auto since = e.waiting_since.load(std::memory_order_relaxed);
            if (since > 0 && (!oldest || since < oldest_since)) {
                oldest = &e;
                oldest_since = since;
            }
        }
        if (!oldest) return nullptr;
        // Picked once: the next new connection takes the place of another. Lost the
        // race (it became busy just now): look again.
        if (!oldest->waiting_since.compare_exchange_strong(oldest_since, kChosen, std::memory_order_relaxed)) continue;
        if (auto c = oldest->connection.lock()) return c;
    }
}

std::vector<std::shared_ptr<Connection>> ConnectionTable::all() const {
    std::vector<std::shared_ptr<Connection>> out;
    std::lock_guard lock(mutex_);
    out.reserve(size_);
    for (const auto& e : entries_)
        if (auto c = e.connection.lock()) out.push_back(std::move(c));
    return out;
}

}  // namespace gavel::webhook
