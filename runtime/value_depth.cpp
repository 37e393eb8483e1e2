#include "runtime/value_depth.hpp"

#include <vector>

namespace gavel::runtime {

namespace {

bool is_collection(const Value& v) { return v.is_array() || v.is_object() || v.is_set(); }

// An open collection on the walk: its children (an object's keys and values in
// turn, since keys may be collections too) and the next one to visit.
struct Frame {
    const Value* values = nullptr;
    const ObjectEntry* entries = nullptr;
    std::size_t children = 0;
    std::size_t next = 0;

    explicit Frame(const Value& c) {
        if (c.is_object()) {
            entries = c.object_entries().data();
            children = 2 * c.object_entries().size();
        } else {
            auto xs = c.is_array() ? c.array_elements() : c.set_elements();
            values = xs.data();
            children = xs.size();
        }
    }
    const Value& child(std::size_t i) const {
        if (!entries) return values[i];
        return i % 2 == 0 ? entries[i / 2].key : entries[i / 2].value;
    }
};

}  // namespace

bool deeper_than(const Value& v, std::size_t limit) {
    if (!is_collection(v)) return false;
    if (limit == 0) return true;
    std::vector<Frame> stack{Frame(v)};  // its size is the depth of the collection on top
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next == top.children) {
            stack.pop_back();
            continue;
        }
        const Value& child = top.child(top.next++);
        if (!is_collection(child)) continue;
        if (stack.size() >= limit) return true;
        stack.push_back(Frame(child));
    }
    return false;
}

}  // namespace gavel::runtime
