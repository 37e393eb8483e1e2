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
#include <unordered_map>

#include "runtime/value.hpp"

namespace gavel::eval {

struct RuleSet;

class FunctionCache {
public:
    // The cached answer (nullopt inside: undefined), or null when there is none.
    const std::optional<runtime::Value>* find(const RuleSet& fn, std::span<const runtime::Value> args) const {
        if (entries_.empty()) return nullptr;
        auto it = entries_.find(KeyView{&fn, args});
        return it == entries_.end() ? nullptr : &it->second;
    }
    void put(const RuleSet& fn, std::span<const runtime::Value> args, std::optional<runtime::Value> result) {
        entries_.emplace(Key{&fn, Args(args.begin(), args.end())}, std::move(result));
    }

private:
    using Args = boost::container::small_vector<runtime::Value, 3>;
    struct KeyView {
        const RuleSet* fn;
        std::span<const runtime::Value> args;
    };
    struct Key {
        const RuleSet* fn;
        Args args;
        KeyView view() const { return {fn, {args.data(), args.size()}}; }
    };
    static std::size_t hash_of(KeyView k) noexcept {
        std::size_t h = std::hash<const void*>{}(k.fn);
        for (const auto& a : k.args) h = (h ^ a.hash()) * 0x100000001b3ull;
        return h;
    }
    static bool same(KeyView a, KeyView b) noexcept {
        if (a.fn != b.fn || a.args.size() != b.args.size()) return false;
        for (std::size_t i = 0; i < a.args.size(); ++i)
            if (!(a.args[i] == b.args[i])) return false;
        return true;
    }
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(const Key& k) const noexcept { return hash_of(k.view()); }
        std::size_t operator()(const KeyView& k) const noexcept { return hash_of(k); }
    };
    struct Equal {
        using is_transparent = void;
        bool operator()(const Key& a, const Key& b) const noexcept { return same(a.view(), b.view()); }
        bool operator()(const KeyView& a, const Key& b) const noexcept { return same(a, b.view()); }
        bool operator()(const Key& a, const KeyView& b) const noexcept { return same(a.view(), b); }
    };
    std::unordered_map<Key, std::optional<runtime::Value>, Hash, Equal> entries_;
};

}  // namespace gavel::eval
