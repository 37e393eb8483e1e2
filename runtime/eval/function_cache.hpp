#pragma once
// OPA's per-query cache of function results (topdown's virtual cache): a user
// function called again with equal arguments, in the same `with` context,
// answers what it answered without running its body again (so a print() in
// it prints once, as in OPA). OPA keeps defined results only; the evaluator
// keeps an undefined one too when running the body again could show nothing
// different (it printed nothing and no tracer listens): the same answer,
// without the work. `with` starts a cache of its own (the evaluator moves this
// one aside), as OPA pushes a frame.
//
// A quiet function (RuleSet::quiet: running it again shows nothing) has its array,
// set and object arguments keyed by identity: the same node hits, an equal copy runs
// the body again, which no one can tell. A fresh admission review is then never hashed
// whole because `is_exempt(container)` or `is_update(input.review)` was called with it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "runtime/hash.hpp"
#include "runtime/value.hpp"

namespace gavel::eval {

struct RuleSet;

class FunctionCache {
public:
    // What find and put take: one hash of the function and its arguments per call.
    // `by_identity`: the function is quiet (the same for every call of it).
    static std::uint64_t key_hash(const RuleSet& fn, std::span<const runtime::Value> args, bool by_identity) noexcept {
        std::uint64_t h = std::hash<const void*>{}(&fn);
        for (const auto& a : args) {
            const std::uint64_t ah = by_identity && is_container(a)
                                         ? runtime::hash_mix(reinterpret_cast<std::uintptr_t>(a.node()))
                                         : a.hash();
            h = (h ^ ah) * 0x100000001b3ull;
        }
        return h ^ (h >> 29);
    }
    // The cached answer (nullopt inside: undefined), or null when there is none.
    const std::optional<runtime::Value>* find(const RuleSet& fn, std::span<const runtime::Value> args, std::uint64_t h,
                                              bool by_identity) const {
        if (entries_.empty()) return nullptr;
        for (std::size_t i = h & mask(); index_[i]; i = (i + 1) & mask()) {
            const Entry& e = entries_[index_[i] - 1];
            if (e.hash == h && same(e, &fn, args, by_identity)) return &e.result;
        }
        return nullptr;
    }
    void put(const RuleSet& fn, std::span<const runtime::Value> args, std::uint64_t h, bool by_identity,
             std::optional<runtime::Value> result) {
        if (2 * (entries_.size() + 1) > index_.size()) grow();
        std::size_t i = h & mask();
        for (; index_[i]; i = (i + 1) & mask())
            if (entries_[index_[i] - 1].hash == h && same(entries_[index_[i] - 1], &fn, args, by_identity))
                return;  // there
        entries_.push_back(Entry{h, &fn, static_cast<std::uint32_t>(args_.size()),
                                 static_cast<std::uint32_t>(args.size()), std::move(result)});
        args_.insert(args_.end(), args.begin(), args.end());
        index_[i] = static_cast<std::uint32_t>(entries_.size());
    }

private:
    // Entries in the order they came, their arguments in one list, and an open-addressed
    // index of entry numbers (linear probing, at most half full): a decision's handful
    // of entries cost a few allocations, not one each, and growing moves no values.
    struct Entry {
        std::uint64_t hash;
        const RuleSet* fn;
        std::uint32_t first_arg, arg_count;
        std::optional<runtime::Value> result;
    };
    std::size_t mask() const noexcept { return index_.size() - 1; }
    static bool is_container(const runtime::Value& v) noexcept { return v.is_array() || v.is_object() || v.is_set(); }
    bool same(const Entry& e, const RuleSet* fn, std::span<const runtime::Value> args,
              bool by_identity) const noexcept {
        if (e.fn != fn || e.arg_count != args.size()) return false;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const runtime::Value& kept = args_[e.first_arg + i];
            if (by_identity && is_container(args[i]) ? !kept.identical(args[i]) : !(kept == args[i])) return false;
        }
        return true;
    }
    void grow() {
        if (index_.empty()) {  // room for a decision's usual handful at once, not five reallocations
            entries_.reserve(16);
            args_.reserve(32);
        }
        index_.assign(index_.empty() ? 32 : 2 * index_.size(), 0);
        for (std::size_t n = 0; n < entries_.size(); ++n) {
            std::size_t i = entries_[n].hash & mask();
            while (index_[i]) i = (i + 1) & mask();
            index_[i] = static_cast<std::uint32_t>(n + 1);
        }
    }
    std::vector<std::uint32_t> index_;  // entry number + 1; 0: free
    std::vector<Entry> entries_;
    std::vector<runtime::Value> args_;
};

}  // namespace gavel::eval
