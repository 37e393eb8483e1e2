#include "runtime/scratch_array.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace gavel::runtime {

using detail::SeqNode;

ScratchArray::~ScratchArray() {
    if (busy_) finish();
    if (node_) ::operator delete(static_cast<void*>(node_));
}

const Value& ScratchArray::make(std::span<const Value> items) {
    busy_ = true;
    if (items.empty()) {
        value_ = Value::empty_array();
        return value_;
    }
    if (capacity_ < items.size()) {
        if (node_) ::operator delete(static_cast<void*>(node_));
        capacity_ = std::max<std::size_t>(items.size(), 4);
        node_ = static_cast<SeqNode*>(::operator new(sizeof(SeqNode) + capacity_ * sizeof(Value)));
    }
    auto* node = new (node_) SeqNode(detail::NodeType::Array, items.size());  // count 1: value_'s
    std::memcpy(static_cast<void*>(node->data()), static_cast<const void*>(items.data()), items.size() * sizeof(Value));
    value_ = Value::adopt(Value::Tag::Array, node);
    return value_;
}

void ScratchArray::finish() noexcept {
    busy_ = false;
    if (!value_.node()) return;  // empty
    if (node_->refs.load(std::memory_order_acquire) == 1) {
        // Nobody else holds it: forget value_ without releasing it (its
        // elements were never counted); the node is reused next time.
        new (&value_) Value();
        return;
    }
    // Kept by the callee: count the elements, then hand the node over.
    const Value* items = node_->data();
    for (std::size_t i = 0; i < node_->size; ++i) detail::retain(items[i].node());
    value_ = Value();  // releases our count only
    node_ = nullptr;
    capacity_ = 0;
}

}  // namespace gavel::runtime
