// Bump allocation of Value heap nodes for bulk builders (the JSON reader).
//
// A parse creates tens of thousands of small nodes at once; taking each from
// malloc, and giving each back one by one when the document dies, cost more
// than the parse itself. A NodeArena carves nodes out of large chunks
// instead. Nodes keep their own reference counts and may outlive the arena,
// be shared across threads and be freed in any order: each chunk counts its
// live nodes and is freed when the last one goes (Node::arena_offset leads a
// node back to its chunk). The price is retention: one surviving node keeps
// its whole chunk (at most kMaxChunk bytes) alive.
//
// A NodeArena itself is single-threaded; the nodes it hands out are not
// published until the builder returns them.
#pragma once

#include "runtime/node.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gavel::runtime::detail {

struct ArenaChunk {
    // Live nodes, plus kOpen while an arena still allocates from the chunk.
    std::atomic<std::uint32_t> live;
    std::uint32_t pad_ = 0;
    std::size_t bytes = 0;
};
static_assert(sizeof(ArenaChunk) % 8 == 0);

class NodeArena {
public:
    // Offsets are 16-bit in 8-byte units, so chunks stay below 512 KiB.
    static constexpr std::size_t kMaxChunk = (std::size_t(1) << 19) - 64;
    static constexpr std::size_t kMaxNode = 16 * 1024;  // larger nodes: own allocation
    // Bytes past the newest node that may be overwritten while filling it
    // (so short strings are copied with one fixed-size move).
    static constexpr std::size_t kSlack = 16;

    // `size_hint`: expected total node bytes (sizes the first chunk).
    explicit NodeArena(std::size_t size_hint) noexcept : next_size_(size_hint) {}
    NodeArena(const NodeArena&) = delete;
    NodeArena& operator=(const NodeArena&) = delete;
    ~NodeArena() { close(); }

    // Memory for a node of `bytes` bytes (8-aligned). The caller constructs
    // the node there, then calls adopt() on it before handing it out.
    void* allocate(std::size_t bytes) {
        bytes = (bytes + 7) & ~std::size_t(7);
        if (bytes > kMaxNode) return ::operator new(bytes);
        if (static_cast<std::size_t>(end_ - cur_) < bytes) refill(bytes);
        void* p = cur_;
        cur_ += bytes;
        ++allocated_;
        return p;
    }
    // Marks a node constructed in memory from allocate() as arena-owned.
    void adopt(Node* n) const noexcept {
        auto* p = reinterpret_cast<char*>(n);
        if (p >= reinterpret_cast<char*>(chunk_) && p < end_)
            n->arena_offset = static_cast<std::uint16_t>((p - reinterpret_cast<char*>(chunk_)) >> 3);
    }

private:
    void refill(std::size_t bytes);
    void close() noexcept;

    ArenaChunk* chunk_ = nullptr;
    char* cur_ = nullptr;
    char* end_ = nullptr;
    std::uint32_t allocated_ = 0;  // nodes handed out from chunk_
    std::size_t next_size_;
};

// Gives an arena node's memory back to its chunk (the node is already destroyed).
void arena_free(Node* n) noexcept;

// While one is alive on a thread, arena frees from the same chunk are counted
// and given back to it with one atomic subtraction when the run of frees from
// that chunk ends, instead of one each: tearing down a parsed document frees
// hundreds of neighbouring nodes. Chunks are freed a little later, never early.
class BatchedArenaFrees {
public:
    BatchedArenaFrees() noexcept;
    ~BatchedArenaFrees();
    BatchedArenaFrees(const BatchedArenaFrees&) = delete;
    BatchedArenaFrees& operator=(const BatchedArenaFrees&) = delete;
};

inline void free_node_memory(Node* n) noexcept {
    if (n->arena_offset) arena_free(n);
    else ::operator delete(static_cast<void*>(n));
}

}  // namespace gavel::runtime::detail
