// intersection and union of a set of sets (the n-ary forms of `&` and `|`).

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/object_family.hpp"

namespace gavel::stdlib {

void register_set_unions(Registry& r) {
    declare(r, "intersection", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_set()) return type_error(1, "set", a[0]);
        for (const auto& s : a[0].set_elements())
            if (!s.is_set()) return type_error(1, "set", s);
        const auto sets = a[0].set_elements();
        if (sets.empty()) return BuiltinResult::of(Value::empty_set());
        // Every element of the smallest set that all the others contain.
        const Value* smallest = &sets[0];
        for (const auto& s : sets)
            if (s.size() < smallest->size()) smallest = &s;
        runtime::SetBuilder b;
        for (const auto& x : smallest->set_elements()) {
            if (ctx.spend(sets.size())) return BuiltinResult::cancelled();
            bool everywhere = true;
            for (const auto& s : sets)
                if (!s.contains(x)) {
                    everywhere = false;
                    break;
                }
            if (everywhere) b.insert(x);
        }
        return set_result(std::move(b), ctx);
    });
    declare(r, "union", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_set()) return type_error(1, "set", a[0]);
        std::size_t total = 0;
        for (const auto& s : a[0].set_elements()) {
            if (!s.is_set()) return type_error(1, "set", s);
            total += s.size();
        }
        if (!ctx.affords(2 * total * sizeof(Value))) return BuiltinResult::cancelled();  // the list, then the set
        runtime::SetBuilder b(total);
        for (const auto& s : a[0].set_elements()) {
            if (ctx.spend(s.size())) return BuiltinResult::cancelled();
            for (const auto& x : s.set_elements()) b.insert(x);
        }
        return set_result(std::move(b), ctx);
    });
}

}  // namespace gavel::stdlib
