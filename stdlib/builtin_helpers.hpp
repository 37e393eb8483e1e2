#pragma once
// Small helpers shared by the builtin families: declaring a builtin in one
// line, and checking operand types with OPA's messages.

#include <span>
#include <string>

#include "stdlib/registry.hpp"

namespace gavel::stdlib {

using runtime::Value;
using Args = std::span<const Value>;

inline void declare(Registry& r, std::string name, std::size_t arity, BuiltinImpl impl) {
    Builtin b;
    b.name = std::move(name);
    b.arity = arity;
    b.impl = std::move(impl);
    r.add(std::move(b));
}

inline BuiltinResult type_error(std::size_t operand, std::string_view want, const Value& got) {
    return BuiltinResult::type_error(operand_type_error({}, operand, want, got));
}

}  // namespace gavel::stdlib
