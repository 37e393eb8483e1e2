// A bounded, thread-safe cache of compiled patterns (regexes, globs) keyed by
// their source text, shared by all evaluations: compiling is far costlier
// than matching, and policies reuse a handful of patterns. When full, an
// arbitrary entry is dropped (as OPA does); entries are shared_ptrs, so a
// pattern in use by another thread stays alive.
#pragma once

#include <cstddef>
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

    std::shared_ptr<const T> find(const std::string& key) const {
        std::shared_lock lock(mu_);
        auto it = map_.find(key);
        return it == map_.end() ? nullptr : it->second;
    }

    void insert(const std::string& key, std::shared_ptr<const T> value) {
        std::unique_lock lock(mu_);
        if (map_.size() >= max_ && !map_.contains(key)) map_.erase(map_.begin());
        map_.insert_or_assign(key, std::move(value));
    }

private:
    mutable std::shared_mutex mu_;
    std::unordered_map<std::string, std::shared_ptr<const T>> map_;
    std::size_t max_;
};

}  // namespace gavel::stdlib
