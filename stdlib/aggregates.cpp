// count, sum, product, max, min, sort over collections.

#include <algorithm>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/unicode_text.hpp"
#include "support/utf8.hpp"

namespace gavel::stdlib {

namespace {

// The elements of an array or set; false for other kinds.
bool elements(const Value& v, std::span<const Value>& out) {
    if (v.is_array()) out = v.array_elements();
    else if (v.is_set()) out = v.set_elements();
    else return false;
    return true;
}

using NumberOp = runtime::NumberResult (*)(const runtime::Number&, const runtime::Number&);

// sum and product as OPA: exactly when every element reads as an integer ("3", not "3.0" or
// "1e3"), else accumulated in one 64-bit float from the identity on.
BuiltinImpl fold(NumberOp exact_op, NumberOp float_op, int64_t identity) {
    return [exact_op, float_op, identity](Args a, BuiltinContext& ctx) {
        std::span<const Value> xs;
        if (!elements(a[0], xs)) return type_error(1, "one of {set, array}", a[0]);
        runtime::Number acc = runtime::Number::from_int(identity);
        bool integers = std::all_of(xs.begin(), xs.end(), [](const Value& x) {
            if (!x.is_number() || !x.as_number().is_integer()) return false;
            auto lit = x.as_number().literal();
            return lit.empty() || lit == "-0";
        });
        NumberOp op = integers ? exact_op : float_op;
        for (const auto& x : xs) {
            if (!x.is_number()) return element_type_error(1, a[0], x, "number");
            // A big integer's product grows with each factor, and so does each
            // step's cost: then each step asks whether the evaluation must stop.
            if (acc.heap() ? ctx.expired() : ctx.spend()) return BuiltinResult::cancelled();
            auto r = op(acc, x.as_number());
            if (!r.ok) return BuiltinResult::error(r.error);
            acc = std::move(r.value);
        }
        return BuiltinResult::of(Value::number(std::move(acc)));
    };
}

}  // namespace

void register_aggregates(Registry& r) {
    declare(r, "count", 1, [](Args a, BuiltinContext&) {
        const Value& v = a[0];
        if (v.is_string()) {
            // Runes as Go counts them: code points, and each invalid byte as one.
            return BuiltinResult::of(Value::integer(static_cast<int64_t>(support::utf8::rune_count(v.as_string()))));
        }
        if (v.is_array() || v.is_set() || v.is_object())
            return BuiltinResult::of(Value::integer(static_cast<int64_t>(v.size())));
        return type_error(1, "one of {array, object, set, string}", v);
    });
    declare(r, "sum", 1, fold(&runtime::add, &runtime::add_as_floats, 0));
    declare(r, "product", 1, fold(&runtime::mul, &runtime::mul_as_floats, 1));
    // OPA's: of equal elements (1 and 1.0) the last one wins; min of a set passes over null
    // when there is anything else.
    auto extreme = [](bool want_max) {
        return [want_max](Args a, BuiltinContext&) {
            std::span<const Value> xs;
            if (!elements(a[0], xs)) return type_error(1, "one of {set, array}", a[0]);
            if (xs.empty()) return BuiltinResult::undefined();
            if (a[0].is_set()) {
                if (want_max) return BuiltinResult::of(xs.back());
                return BuiltinResult::of(xs.size() > 1 && xs[0].is_null() ? xs[1] : xs[0]);
            }
            const Value* best = &xs[0];
            for (const auto& x : xs)
                if (want_max ? !(x < *best) : !(*best < x)) best = &x;
            return BuiltinResult::of(*best);
        };
    };
    declare(r, "max", 1, extreme(true));
    declare(r, "min", 1, extreme(false));
    declare(r, "sort", 1, [](Args a, BuiltinContext& ctx) {
        std::span<const Value> xs;
        if (!elements(a[0], xs)) return type_error(1, "one of {set, array}", a[0]);
        if (a[0].is_set()) return BuiltinResult::of(Value::array_of(xs));  // a set is sorted already
        if (!ctx.affords(2 * xs.size() * sizeof(Value))) return BuiltinResult::cancelled();
        std::vector<Value> sorted(xs.begin(), xs.end());
        auto less = [](const Value& x, const Value& y) { return x < y; };
        if (!runtime::budgeted_sort(sorted.begin(), sorted.end(), less, ctx)) return BuiltinResult::cancelled();
        runtime::ArrayBuilder b(sorted.size());
        for (auto& v : sorted) b.push_back(std::move(v));
        return BuiltinResult::of(b.build());
    });
}

}  // namespace gavel::stdlib
