// is_string, is_number, ... and type_name.

#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

void register_types(Registry& r) {
    auto is = [](runtime::Kind kind) {
        return [kind](Args a, BuiltinContext&) { return BuiltinResult::of(Value::boolean(a[0].kind() == kind)); };
    };
    declare(r, "is_null", 1, is(runtime::Kind::Null));
    declare(r, "is_boolean", 1, is(runtime::Kind::Boolean));
    declare(r, "is_number", 1, is(runtime::Kind::Number));
    declare(r, "is_string", 1, is(runtime::Kind::String));
    declare(r, "is_array", 1, is(runtime::Kind::Array));
    declare(r, "is_set", 1, is(runtime::Kind::Set));
    declare(r, "is_object", 1, is(runtime::Kind::Object));
    declare(r, "type_name", 1,
            [](Args a, BuiltinContext&) { return BuiltinResult::of(Value::string(a[0].type_name())); });
}

}  // namespace gavel::stdlib
