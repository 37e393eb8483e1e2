// array.concat, array.slice, array.reverse, array.flatten

#include <algorithm>
#include <optional>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/string_operands.hpp"

namespace gavel::stdlib {

namespace {

// Room for an array of `n` elements (the builder's list, then the array) within
// the evaluation's memory limit, and the work of copying them.
bool affords_array(BuiltinContext& ctx, std::size_t n) { return !ctx.spend(n) && ctx.affords(2 * n * sizeof(Value)); }

}  // namespace

void register_arrays(Registry& r) {
    declare(r, "array.concat", 2, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        if (!a[1].is_array()) return type_error(2, "array", a[1]);
        if (a[1].size() == 0) return BuiltinResult::of(a[0]);
        if (a[0].size() == 0) return BuiltinResult::of(a[1]);
        if (!affords_array(ctx, a[0].size() + a[1].size())) return BuiltinResult::cancelled();
        runtime::ArrayBuilder b(a[0].size() + a[1].size());
        for (const auto& v : a[0].array_elements()) b.push_back(v);
        for (const auto& v : a[1].array_elements()) b.push_back(v);
        return BuiltinResult::of(b.build());
    });
    declare(r, "array.slice", 3, [](Args a, BuiltinContext&) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        int64_t start = 0, stop = 0;
        BuiltinResult err;
        // OPA's IntOperand: 1.0 is no integer operand.
        if (!int_operand(a[1], 2, start, err) || !int_operand(a[2], 3, stop, err)) return err;
        // Clamp both ends into [0, len] and start to stop, as OPA does.
        const auto len = static_cast<int64_t>(a[0].size());
        stop = std::clamp<int64_t>(stop, 0, len);
        start = std::clamp<int64_t>(start, 0, stop);
        const auto elems = a[0].array_elements();
        runtime::ArrayBuilder b(static_cast<std::size_t>(stop - start));
        for (int64_t i = start; i < stop; ++i) b.push_back(elems[static_cast<std::size_t>(i)]);
        return BuiltinResult::of(b.build());
    });
    declare(r, "array.reverse", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        const auto elems = a[0].array_elements();
        runtime::ArrayBuilder b(elems.size());
        for (std::size_t i = elems.size(); i-- > 0;) b.push_back(elems[i]);
        return BuiltinResult::of(b.build());
    });
    // One level only: nested arrays inside the elements stay as they are.
    declare(r, "array.flatten", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        std::size_t total = 0;
        for (const auto& v : a[0].array_elements()) total += v.is_array() ? v.size() : 1;
        if (!affords_array(ctx, total)) return BuiltinResult::cancelled();
        runtime::ArrayBuilder b(total);
        for (const auto& v : a[0].array_elements()) {
            if (v.is_array())
                for (const auto& inner : v.array_elements()) b.push_back(inner);
            else b.push_back(v);
        }
        return BuiltinResult::of(b.build());
    });
}

}  // namespace gavel::stdlib
