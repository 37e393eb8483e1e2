#pragma once
// OPA's per-query cache of function results (topdown's virtual cache): a user
// function called again with equal arguments, in the same `with` context,
// answers what it answered without running its body again (so a print() in
// it prints once, as in OPA). OPA keeps defined results only; the evaluator
// keeps an undefined one too when running the body again could show nothing
// different (it printed nothing and no tracer listens): the same answer,
// without the work. `with` starts a cache of its own (the evaluator moves this
// one aside), as OPA pushes a frame.

#include "support/small_vector.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::eval {

struct RuleSet;

class FunctionCache {
public:
    // The cached answer (nullopt inside: undefined), or null when there is none.
    const std::optional<runtime::Value>* find(const RuleSet& fn, std::span<const runtime::Value> args) const {
        if (size_ == 0) return nullptr;
        const std::uint64_t h = hash_of(&fn, args);
        for (std::size_t i = h & mask(); slots_[i].fn; i = (i + 1) & mask())
            if (slots_[i].hash == h && same(slots_[i], &fn, args)) return &slots_[i].result;
        return nullptr;
    }
    void put(const RuleSet& fn, std::span<const runtime::Value> args, std::optional<runtime::Value> result) {
        if (2 * (size_ + 1) > slots_.size()) grow();
        const std::uint64_t h = hash_of(&fn, args);
        std::size_t i = h & mask();
        for (; slots_[i].fn; i = (i + 1) & mask())
            if (slots_[i].hash == h && same(slots_[i], &fn, args)) return;  // already there
        slots_[i] = Slot{h, &fn, Args(args.begin(), args.end()), std::move(result)};
        ++size_;
    }

private:
    // Open addressing with linear probing in one block: a decision's handful of
    // entries cost one allocation, not one each (a node-based map's).
    using Args = boost::container::small_vector<runtime::Value, 3>;
    struct Slot {
        std::uint64_t hash = 0;
        const RuleSet* fn = nullptr;  // null: free
        Args args;
        std::optional<runtime::Value> result;
    };
    std::size_t mask() const noexcept { return slots_.size() - 1; }
    static std::uint64_t hash_of(const RuleSet* fn, std::span<const runtime::Value> args) noexcept {
        std::uint64_t h = std::hash<const void*>{}(fn);
        for (const auto& a : args) h = (h ^ a.hash()) * 0x100000001b3ull;
        return h ^ (h >> 29);
    }
    static bool same(const Slot& s, const RuleSet* fn, std::span<const runtime::Value> args) noexcept {
        if (s.fn != fn || s.args.size() != args.size()) return false;
        for (std::size_t i = 0; i < args.size(); ++i)
            if (!(s.args[i] == args[i])) return false;
        return true;
    }
    void grow() {
        std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(slots_.empty() ? 16 : 2 * slots_.size()));
        for (Slot& s : old) {
            if (!s.fn) continue;
            std::size_t i = s.hash & mask();
            while (slots_[i].fn) i = (i + 1) & mask();
            slots_[i] = std::move(s);
        }
    }
    std::vector<Slot> slots_;  // a power of two in size, at most half full
    std::size_t size_ = 0;
};

}  // namespace gavel::eval
