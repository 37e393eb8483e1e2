// Intrusive, atomically reference-counted heap node shared by Value and Number.
//
// Values are immutable once built and are shared freely across threads, so the
// count is atomic: increments are relaxed, the final decrement acquires so the
// destroying thread sees every write made before other owners let go.
//
// Nodes are individually heap-allocated, or carved out of a NodeArena chunk
// (node_arena.hpp; the JSON reader does this): `arena_offset` is then the
// distance back to the chunk header in 8-byte units, and freeing the node
// gives its bytes back to the chunk, which is freed with its last node.
#pragma once

#include <atomic>
#include <cstdint>

namespace gavel::runtime::detail {

enum class NodeType : std::uint8_t { String, Array, Set, Object, Number };

struct Node {
    mutable std::atomic<std::uint32_t> refs{1};
    NodeType type;
    std::uint8_t reserved = 0;
    std::uint16_t arena_offset = 0;  // 0: own allocation; else chunk header distance / 8
    explicit Node(NodeType t) noexcept : type(t) {}
};
static_assert(sizeof(Node) == 8);

// Frees a node whose count reached zero (dispatches on `type`; value.cpp).
void destroy_node(Node* n) noexcept;

inline void retain(const Node* n) noexcept {
    if (n) n->refs.fetch_add(1, std::memory_order_relaxed);
}

// A count of 1 seen by an owner means no other owner exists (nobody else can
// be copying it concurrently), so the last release skips the atomic RMW.
inline void release(const Node* n) noexcept {
    if (n && (n->refs.load(std::memory_order_acquire) == 1 ||
              n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1))
        destroy_node(const_cast<Node*>(n));
}

} // namespace gavel::runtime::detail
