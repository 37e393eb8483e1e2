// +, -, *, /, % and the number functions. `-` on two sets is set difference.

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

using BinaryOp = runtime::NumberResult (*)(const runtime::Number&, const runtime::Number&);

BuiltinImpl binary(BinaryOp op) {
    return [op](Args a, BuiltinContext&) {
        if (!a[0].is_number()) return type_error(1, "number", a[0]);
        if (!a[1].is_number()) return type_error(2, "number", a[1]);
        auto r = op(a[0].as_number(), a[1].as_number());
        if (!r.ok) return BuiltinResult::error(r.error);
        return BuiltinResult::of(Value::number(std::move(r.value)));
    };
}

BuiltinImpl unary(runtime::NumberResult (*op)(const runtime::Number&)) {
    return [op](Args a, BuiltinContext&) {
        if (!a[0].is_number()) return type_error(1, "number", a[0]);
        auto r = op(a[0].as_number());
        if (!r.ok) return BuiltinResult::error(r.error);
        return BuiltinResult::of(Value::number(std::move(r.value)));
    };
}

}  // namespace

void register_arithmetic(Registry& r) {
    declare(r, "plus", 2, binary(&runtime::add));
    declare(r, "mul", 2, binary(&runtime::mul));
    declare(r, "div", 2, binary(&runtime::div));
    declare(r, "rem", 2, binary(&runtime::rem));
    declare(r, "minus", 2, [](Args a, BuiltinContext& ctx) {
        if (a[0].is_set() && a[1].is_set()) {
            runtime::SetBuilder b;
            for (const auto& v : a[0].set_elements())
                if (!a[1].contains(v)) b.insert(v);
            return BuiltinResult::of(b.build());
        }
        if (!a[0].is_number() && !a[0].is_set()) return type_error(1, "one of {number, set}", a[0]);
        if (!a[1].is_number() && !a[1].is_set()) return type_error(2, "one of {number, set}", a[1]);
        if (a[0].kind() != a[1].kind()) return type_error(2, a[0].is_number() ? "number" : "set", a[1]);
        return binary(&runtime::sub)(a, ctx);
    });
    declare(r, "abs", 1, unary(&runtime::abs));
    declare(r, "round", 1, unary(&runtime::round));
    declare(r, "ceil", 1, unary(&runtime::ceil));
    declare(r, "floor", 1, unary(&runtime::floor));
}

}  // namespace gavel::stdlib
