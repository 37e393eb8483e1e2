// Set union `|`, intersection `&`, and membership `in`.

#include <optional>

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

// Two sets' elements, both sorted, merged into one set in one pass; nullopt when the
// evaluation must stop.
std::optional<runtime::SetBuilder> merged(std::span<const Value> x, std::span<const Value> y, BuiltinContext& ctx) {
    if (!ctx.affords(2 * (x.size() + y.size()) * sizeof(Value))) return std::nullopt;  // the list, then the set
    runtime::SetBuilder b(x.size() + y.size());
    std::size_t i = 0, j = 0;
    while (i < x.size() || j < y.size()) {
        if (ctx.spend()) return std::nullopt;
        int c = i == x.size() ? 1 : j == y.size() ? -1 : compare(x[i], y[j]);
        // Equal elements both go in, x's first: the set keeps what OPA's Union keeps adding
        // x's elements, then y's (2.0 from x and 2 from y both stay; runtime::SetBuilder).
        if (c <= 0) b.insert(x[i++]);
        if (c >= 0) b.insert(y[j++]);
    }
    return b;
}

bool member(const Value& collection, const Value& x) {
    if (collection.is_set()) return collection.contains(x);
    if (collection.is_array()) {
        for (const auto& e : collection.array_elements())
            if (e == x) return true;
        return false;
    }
    if (collection.is_object()) {
        for (const auto& entry : collection.object_entries())
            if (entry.value == x) return true;
    }
    return false;
}

}  // namespace

void register_sets(Registry& r) {
    declare(r, "or", 2, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_set()) return type_error(1, "set", a[0]);
        if (!a[1].is_set()) return type_error(2, "set", a[1]);
        if (a[1].size() == 0) return BuiltinResult::of(a[0]);
        if (a[0].size() == 0) return BuiltinResult::of(a[1]);
        auto both = merged(a[0].set_elements(), a[1].set_elements(), ctx);
        if (!both) return BuiltinResult::cancelled();
        return set_result(std::move(*both), ctx);
    });
    declare(r, "and", 2, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_set()) return type_error(1, "set", a[0]);
        if (!a[1].is_set()) return type_error(2, "set", a[1]);
        // As OPA's Intersect: the smaller set's elements are looked up in the other (a
        // lookup of 2 does not find 2.0, one of 2.0 finds 2: see Value::contains).
        const bool swap = a[1].size() < a[0].size();
        const Value& small = swap ? a[1] : a[0];
        const Value& other = swap ? a[0] : a[1];
        runtime::SetBuilder b;
        for (const auto& v : small.set_elements()) {
            if (ctx.spend()) return BuiltinResult::cancelled();
            if (other.contains(v)) b.insert(v);
        }
        return set_result(std::move(b), ctx);
    });
    declare(r, "internal.member_2", 2,
            [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(member(a[1], a[0]))); });
    declare(r, "internal.member_3", 3, [](Args a, BuiltinContext&) {
        const Value& key = a[0];
        const Value& value = a[1];
        const Value& c = a[2];
        bool found = false;
        if (c.is_object()) {
            const Value* v = c.find(key);
            found = v && *v == value;
        } else if (c.is_array()) {
            int64_t i;
            found = key.is_number() && key.as_int64(i) && i >= 0 && static_cast<std::size_t>(i) < c.size() &&
                    c.array_elements()[static_cast<std::size_t>(i)] == value;
        } else if (c.is_set()) {
            found = key == value && c.contains(key);
        }
        return BuiltinResult::of(Value::boolean(found));
    });
}

}  // namespace gavel::stdlib
