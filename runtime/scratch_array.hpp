// An array value that lives for one call: a builtin's array-literal argument
// (`sprintf(fmt, [container.image])`), made once per evaluation of the call.
//
// Its elements outlive the call (they are bound variables, input, constants),
// so the array borrows them: copied bitwise, not counted, which saves an
// atomic count and release per element. Its node is kept for the next call,
// which saves an allocation and a free. A callee that kept the array (its
// count is above one when the call returns) gets a proper one: the elements
// are counted then, and the node is left to its new owners.
#pragma once

#include "runtime/value.hpp"

#include <cstddef>
#include <span>

namespace gavel::runtime {

class ScratchArray {
public:
    ScratchArray() = default;
    ScratchArray(const ScratchArray&) = delete;
    ScratchArray& operator=(const ScratchArray&) = delete;
    ~ScratchArray();

    // Whether an array made by make() is still in use (finish() not called).
    bool busy() const noexcept { return busy_; }
    // The array of `items`, which must outlive finish(). Not while busy().
    const Value& make(std::span<const Value> items);
    // The call returned (or unwound): the array is given up.
    void finish() noexcept;

private:
    detail::SeqNode* node_ = nullptr;  // kept between calls, with room for capacity_ values
    std::size_t capacity_ = 0;
    Value value_;
    bool busy_ = false;
};

}  // namespace gavel::runtime
