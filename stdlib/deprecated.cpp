// all, any and set_diff: builtins OPA 0.x shipped and 1.0 deprecated. They
// exist only for v0 modules (the planner rejects them in v1 ones); the casts,
// re_match and net.cidr_overlap live with their families.

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

void declare_v0_only(Registry& r, std::string name, std::size_t arity, BuiltinImpl impl) {
    Builtin b;
    b.name = std::move(name);
    b.arity = arity;
    b.impl = std::move(impl);
    r.add(std::move(b));
}

// all/any: whether every / some element of an array or set is exactly `true`.
BuiltinImpl quantifier(bool every) {
    return [every](Args a, BuiltinContext&) {
        const Value t = Value::boolean(true);
        auto test = [&](const Value& e) { return e == t; };
        bool result = every;
        if (a[0].is_array()) {
            for (const auto& e : a[0].array_elements())
                if (test(e) != every) {
                    result = !every;
                    break;
                }
        } else if (a[0].is_set()) {
            for (const auto& e : a[0].set_elements())
                if (test(e) != every) {
                    result = !every;
                    break;
                }
        } else {
            return type_error(1, "one of {array, set}", a[0]);
        }
        return BuiltinResult::of(Value::boolean(result));
    };
}

}  // namespace

void register_deprecated(Registry& r) {
    declare_v0_only(r, "all", 1, quantifier(true));
    declare_v0_only(r, "any", 1, quantifier(false));
    declare_v0_only(r, "set_diff", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_set()) return type_error(1, "set", a[0]);
        if (!a[1].is_set()) return type_error(2, "set", a[1]);
        runtime::SetBuilder b;
        for (const auto& v : a[0].set_elements())
            if (!a[1].contains(v)) b.insert(v);
        return BuiltinResult::of(b.build());
    });
}

}  // namespace gavel::stdlib
