#pragma once
// Small helpers shared by the builtin families: declaring a builtin in one
// line, and checking operand types with OPA's messages.

#include <optional>
#include <span>
#include <string>

#include "runtime/json.hpp"
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

// An element of the wrong type in an array or set operand, in OPA's words (NewOperandElementErr):
// "operand 1 must be array of numbers but got array containing string".
inline BuiltinResult element_type_error(std::size_t operand, const Value& composite, const Value& element,
                                        std::string_view want) {
    std::string kind(composite.type_name());
    return BuiltinResult::type_error("operand " + std::to_string(operand) + " must be " + kind + " of " +
                                     std::string(want) + "s but got " + kind + " containing " +
                                     std::string(element.type_name()));
}

// A value's compact JSON text (`escape_html`: with <, > and & escaped, as Go's
// json.Marshal), written within the evaluation's budget: the text of a value
// shared many times over is far larger than the value. nullopt: stop.
inline std::optional<std::string> json_text(const Value& v, BuiltinContext& ctx, bool escape_html = false) {
    std::string text;
    runtime::JsonWriteOptions options;
    options.escape_html = escape_html;
    if (!runtime::append_json(text, v, options, ctx)) return std::nullopt;
    return text;
}

// A builtin's text as its string result, allocated only within the
// evaluation's memory limit (the text is copied into the value): cancelled
// when the copy would cross it.
inline BuiltinResult text_result(BuiltinContext& ctx, std::string_view text) {
    if (!ctx.affords(text.size() + 64)) return BuiltinResult::cancelled();
    return BuiltinResult::of(Value::string(text));
}

// A builtin's array result, allocated within the evaluation's memory limit
// (the elements are moved into it from the builder's list).
inline BuiltinResult array_result(runtime::ArrayBuilder&& elements, BuiltinContext& ctx) {
    if (!ctx.affords(elements.size() * sizeof(Value) + 64)) return BuiltinResult::cancelled();
    return BuiltinResult::of(elements.build());
}

// A builtin's set result, sorted within the evaluation's deadline and
// allocated within its memory limit: cancelled when either says stop.
inline BuiltinResult set_result(runtime::SetBuilder&& elements, BuiltinContext& ctx) {
    auto set = elements.build(ctx);
    if (!set) return BuiltinResult::cancelled();
    return BuiltinResult::of(std::move(*set));
}

}  // namespace gavel::stdlib
