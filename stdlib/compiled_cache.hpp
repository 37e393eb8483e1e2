// A bounded, thread-safe cache of compiled patterns (regexes, globs) keyed by
// their source text, shared by all evaluations: compiling is far costlier
// than matching, and policies reuse a handful of patterns. When full, an
// arbitrary entry is dropped (as OPA does); entries are shared_ptrs, so a
// pattern in use by another thread stays alive.
//
// A policy matching one pattern per element (`regex.match(p, x)` over a list) looks
// the same key up again and again: each thread keeps its last few hits in front of
// the shared map, found without the lock, a key copy or a hash.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace gavel::stdlib {

template <class T>
class CompiledCache {
public:
    explicit CompiledCache(std::size_t max_entries) : max_(max_entries) {}

    std::shared_ptr<const T> find(std::string_view key) const {
        for (const Recent& r : recent_)
            if (r.owner == this && r.key == key) return r.value;
        std::shared_ptr<const T> hit;
        {
            std::shared_lock lock(mu_);
            auto it = map_.find(key);
            if (it != map_.end()) hit = it->second;
        }
        if (hit) remember(key, hit);
        return hit;
    }

    void insert(std::string_view key, std::shared_ptr<const T> value) {
        remember(key, value);
        std::unique_lock lock(mu_);
        if (map_.size() >= max_ && map_.find(key) == map_.end()) map_.erase(map_.begin());
        map_.insert_or_assign(std::string(key), std::move(value));
    }

private:
    struct Hash {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
    };
    // This thread's last hits, of any cache of this kind (hence the owner).
    struct Recent {
        const CompiledCache* owner = nullptr;
        std::string key;
        std::shared_ptr<const T> value;
    };
    static constexpr std::size_t kRecent = 8;
    static inline thread_local std::array<Recent, kRecent> recent_{};
    static inline thread_local std::size_t next_ = 0;

    void remember(std::string_view key, const std::shared_ptr<const T>& value) const {
        Recent& slot = recent_[next_++ % kRecent];
        slot.owner = this;
        slot.key.assign(key);
        slot.value = value;
    }

    mutable std::shared_mutex mu_;
    std::unordered_map<std::string, std::shared_ptr<const T>, Hash, std::equal_to<>> map_;
    std::size_t max_;
};

}  // namespace gavel::stdlib
