#pragma once
// Argument and element lists built while evaluating a call or a composite
// term. Each value is *borrowed*: a bitwise view of a value that outlives the
// continuation the list is handed to (continuation-passing keeps every value
// alive until its continuation returns). So building a list costs no atomic
// reference counting; whoever keeps a value copies it as usual, which takes
// its own reference. The list never releases what it holds.

#include <cstring>
#include <span>

#include "support/small_vector.hpp"

#include "runtime/value.hpp"

namespace gavel::eval {

class BorrowedValues {
public:
    BorrowedValues() = default;
    explicit BorrowedValues(std::size_t n) : raw_(n) {}
    BorrowedValues(const BorrowedValues&) = delete;
    BorrowedValues& operator=(const BorrowedValues&) = delete;

    void push_back(const runtime::Value& v) {
        raw_.emplace_back();
        std::memcpy(static_cast<void*>(&raw_.back()), static_cast<const void*>(&v), sizeof(runtime::Value));
    }
    void pop_back() { raw_.pop_back(); }
    void set(std::size_t i, const runtime::Value& v) {
        std::memcpy(static_cast<void*>(&raw_[i]), static_cast<const void*>(&v), sizeof(runtime::Value));
    }

    std::size_t size() const { return raw_.size(); }
    bool empty() const { return raw_.empty(); }
    const runtime::Value* data() const { return reinterpret_cast<const runtime::Value*>(raw_.data()); }
    const runtime::Value& operator[](std::size_t i) const { return data()[i]; }
    const runtime::Value* begin() const { return data(); }
    const runtime::Value* end() const { return data() + size(); }

private:
    struct alignas(runtime::Value) Raw {
        unsigned char bytes[sizeof(runtime::Value)];
    };
    boost::container::small_vector<Raw, 6> raw_;
};

}  // namespace gavel::eval
