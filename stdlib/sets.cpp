// Set union `|`, intersection `&`, and membership `in`.

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

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
    declare(r, "or", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_set()) return type_error(1, "set", a[0]);
        if (!a[1].is_set()) return type_error(2, "set", a[1]);
        runtime::SetBuilder b;
        for (const auto& v : a[0].set_elements()) b.insert(v);
        for (const auto& v : a[1].set_elements()) b.insert(v);
        return BuiltinResult::of(b.build());
    });
    declare(r, "and", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_set()) return type_error(1, "set", a[0]);
        if (!a[1].is_set()) return type_error(2, "set", a[1]);
        runtime::SetBuilder b;
        for (const auto& v : a[0].set_elements())
            if (a[1].contains(v)) b.insert(v);
        return BuiltinResult::of(b.build());
    });
    declare(r, "internal.member_2", 2, [](Args a, BuiltinContext&) {
        return BuiltinResult::of(Value::boolean(member(a[1], a[0])));
    });
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
