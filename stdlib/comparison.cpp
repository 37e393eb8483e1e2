// ==, !=, <, <=, >, >= over any values, in OPA's total order.

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_comparison(Registry& r) {
    declare(r, "equal", 2, [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(a[0] == a[1])); });
    declare(r, "neq", 2, [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(a[0] != a[1])); });
    declare(r, "lt", 2, [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(a[0] < a[1])); });
    declare(r, "lte", 2, [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(a[0] <= a[1])); });
    declare(r, "gt", 2, [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(a[0] > a[1])); });
    declare(r, "gte", 2, [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(a[0] >= a[1])); });
}

}  // namespace gavel::stdlib
