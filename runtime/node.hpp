// Intrusive, atomically reference-counted heap node shared by Value and Number.
//
// Values are immutable once built and are shared freely across threads, so the
// count is atomic: increments are relaxed, the final decrement acquires so the
// destroying thread sees every write made before other owners let go.
//
// Nodes come in three kinds of ownership:
//   * own allocation: counted one by one, freed with their last reference;
//   * carved out of a NodeArena chunk (node_arena.hpp; the eager JSON reader):
//     still counted one by one, but `arena_offset` leads back to the chunk
//     header (in 8-byte units) and the chunk is freed with its last node;
//   * owned by a document (flag kInDocument; lazy_json.hpp): the nodes of one
//     small parsed JSON document share a single count in the DocumentHeader
//     that `arena_offset` leads to. References between nodes of the document
//     are not counted; only references from outside are. When the last one
//     goes, the whole document is freed at once, without visiting its nodes.
//     A document's containers may also be lazy (kLazy): their entries are
//     built on first access (materialize()), once, by whichever thread asks.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gavel::runtime::detail {

enum class NodeType : std::uint8_t { String, Array, Set, Object, Number };

// Node::flags. kInDocument never changes; kLazy and kBusy are cleared once
// the entries are built (release store; readers load with acquire).
inline constexpr std::uint8_t kInDocument = 0x80;
inline constexpr std::uint8_t kLazy = 0x01;
inline constexpr std::uint8_t kBusy = 0x02;

struct Node {
    mutable std::atomic<std::uint32_t> refs{1};  // unused by document nodes
    NodeType type;
    mutable std::atomic<std::uint8_t> flags{0};
    std::uint16_t arena_offset = 0;  // 0: own allocation; else header distance / 8
    explicit Node(NodeType t) noexcept : type(t) {}
};
static_assert(sizeof(Node) == 8);

// The single count of a document's nodes, at the start of its memory block.
struct DocumentHeader {
    std::atomic<std::uint32_t> refs{1};
    std::uint32_t index_at = 0;  // where the block keeps the text's structural index
    // Nodes the document's values refer to but that live outside its block
    // (big numbers); released with the document. Lock-free push.
    struct External {
        Node* node;
        External* next;
    };
    std::atomic<External*> externals{nullptr};
};
static_assert(sizeof(DocumentHeader) % 16 == 0);

inline DocumentHeader* document_of(const Node* n) noexcept {
    return reinterpret_cast<DocumentHeader*>(const_cast<char*>(reinterpret_cast<const char*>(n)) -
                                             (std::size_t(n->arena_offset) << 3));
}

// Frees a node whose count reached zero (dispatches on `type`; value.cpp).
void destroy_node(Node* n) noexcept;
// Frees a document whose count reached zero (lazy_json.cpp).
void destroy_document(DocumentHeader* d) noexcept;
// Builds a lazy container's entries (lazy_json.cpp).
void materialize(const Node* n) noexcept;

inline bool in_document(const Node* n) noexcept {
    return (n->flags.load(std::memory_order_relaxed) & kInDocument) != 0;
}

// Call before reading a container node's entries.
inline void ensure_materialized(const Node* n) noexcept {
    if (n->flags.load(std::memory_order_acquire) & (kLazy | kBusy)) [[unlikely]]
        materialize(n);
}

// A document node's count is its document's (out of line: keeps the
// inlined common path small).
void retain_document(const Node* n) noexcept;
void release_document(const Node* n) noexcept;

inline void retain(const Node* n) noexcept {
    if (!n) return;
    if (in_document(n)) [[unlikely]]
        return retain_document(n);
    n->refs.fetch_add(1, std::memory_order_relaxed);
}

// A count of 1 seen by an owner means no other owner exists (nobody else can
// be copying it concurrently), so the last release skips the atomic RMW.
inline void release(const Node* n) noexcept {
    if (!n) return;
    if (in_document(n)) [[unlikely]]
        return release_document(n);
    if (n->refs.load(std::memory_order_acquire) == 1 || n->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
        destroy_node(const_cast<Node*>(n));
}

}  // namespace gavel::runtime::detail
