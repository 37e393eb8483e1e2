// Intrusive, atomically reference-counted heap node shared by Value and Number.
//
// Values are immutable once built and are shared freely across threads, so the
// count is atomic: increments are relaxed, the final decrement acquires so the
// destroying thread sees every write made before other owners let go.
#pragma once

#include <atomic>
#include <cstdint>

namespace gavel::runtime::detail {

enum class NodeType : std::uint8_t { String, Array, Set, Object, Number };

struct Node {
    mutable std::atomic<std::uint32_t> refs{1};
    NodeType type;
    explicit Node(NodeType t) noexcept : type(t) {}
};

// Frees a node whose count reached zero (dispatches on `type`; value.cpp).
void destroy_node(Node* n) noexcept;

inline void retain(const Node* n) noexcept {
    if (n) n->refs.fetch_add(1, std::memory_order_relaxed);
}

inline void release(const Node* n) noexcept {
    if (n && n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        destroy_node(const_cast<Node*>(n));
}

} // namespace gavel::runtime::detail
