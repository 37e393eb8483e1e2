#include "runtime/node_arena.hpp"

#include <algorithm>
#include <new>

namespace gavel::runtime::detail {

namespace {

// Added to a chunk's count while it is open, so frees during the build can
// never take it to zero; close() removes it less the nodes handed out.
constexpr std::uint32_t kOpen = 0x80000000u;

void release_chunk(ArenaChunk* c, std::uint32_t n) noexcept {
    if (n == 0) return;
    std::uint32_t before =
        c->live.load(std::memory_order_acquire) == n ? n : c->live.fetch_sub(n, std::memory_order_acq_rel);
    if (before == n) {
        c->~ArenaChunk();
        ::operator delete(static_cast<void*>(c));
    }
}

}  // namespace

void NodeArena::close() noexcept {
    if (!chunk_) return;
    release_chunk(chunk_, kOpen - allocated_);
    chunk_ = nullptr;
    cur_ = end_ = nullptr;
    allocated_ = 0;
}

void NodeArena::refill(std::size_t bytes) {
    close();
    std::size_t size = std::clamp<std::size_t>(next_size_, 4096, kMaxChunk);
    size = std::max(size, bytes + sizeof(ArenaChunk) + kSlack);
    next_size_ = std::min(size * 2, kMaxChunk);
    void* mem = ::operator new(size);
    chunk_ = new (mem) ArenaChunk{};
    chunk_->live.store(kOpen, std::memory_order_relaxed);
    chunk_->bytes = size;
    cur_ = static_cast<char*>(mem) + sizeof(ArenaChunk);
    end_ = static_cast<char*>(mem) + size - kSlack;
    allocated_ = 0;
}

namespace {

struct PendingFrees {
    unsigned depth = 0;  // live BatchedArenaFrees scopes on this thread
    ArenaChunk* chunk = nullptr;
    std::uint32_t count = 0;

    void flush() noexcept {
        ArenaChunk* c = chunk;
        std::uint32_t n = count;
        chunk = nullptr;
        count = 0;
        if (c) release_chunk(c, n);
    }
};

thread_local PendingFrees pending;

}  // namespace

BatchedArenaFrees::BatchedArenaFrees() noexcept { ++pending.depth; }

BatchedArenaFrees::~BatchedArenaFrees() {
    if (--pending.depth == 0) pending.flush();
}

void arena_free(Node* n) noexcept {
    auto* c = reinterpret_cast<ArenaChunk*>(reinterpret_cast<char*>(n) - (std::size_t(n->arena_offset) << 3));
    if (pending.depth == 0) {
        release_chunk(c, 1);
        return;
    }
    if (c != pending.chunk) pending.flush();
    pending.chunk = c;
    ++pending.count;
}

}  // namespace gavel::runtime::detail
