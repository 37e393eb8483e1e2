// internal.print and internal.template_string: what the compiler turns print
// statements and template strings into. Each operand is a string (text as
// is) or a set holding the values of an expression: an empty set is
// `<undefined>`, several values give one output each (their cross product),
// as OPA's builtinPrintCrossProductOperands does.

#include <iostream>

#include "runtime/value_format.hpp"
#include "stdlib/builtin_helpers.hpp"

namespace gavel::stdlib {

namespace {

// Calls `f` with each combination of the operands' values, as text; false when an operand is no string or set.
template <class F>
bool cross_product(std::span<const Value> operands, std::vector<std::string>& buf, std::size_t i, F&& f) {
    if (i == operands.size()) {
        f(buf);
        return true;
    }
    const Value& op = operands[i];
    if (op.is_string()) {
        buf[i] = op.as_string();
        return cross_product(operands, buf, i + 1, f);
    }
    if (op.is_number() || op.is_bool() || op.is_null()) {
        buf[i] = format_value(op);
        return cross_product(operands, buf, i + 1, f);
    }
    if (!op.is_set()) return false;
    if (op.size() == 0) {
        buf[i] = "<undefined>";
        return cross_product(operands, buf, i + 1, f);
    }
    for (const auto& v : op.set_elements()) {
        buf[i] = v.is_string() ? std::string(v.as_string()) : format_value(v);
        if (!cross_product(operands, buf, i + 1, f)) return false;
    }
    return true;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i) out += separator;
        out += parts[i];
    }
    return out;
}

}  // namespace

void register_print(Registry& r) {
    declare(r, "internal.print", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        auto operands = a[0].array_elements();
        std::vector<std::string> buf(operands.size());
        bool ok = cross_product(operands, buf, 0, [&](const std::vector<std::string>& parts) {
            std::string line = join(parts, " ");
            if (ctx.print) ctx.print(line);
            else std::cerr << line << "\n";
        });
        if (!ok) return BuiltinResult::error("illegal argument type");
        return BuiltinResult::of(Value::boolean(true));
    });
    declare(r, "internal.template_string", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        auto operands = a[0].array_elements();
        std::vector<std::string> buf(operands.size());
        std::optional<std::string> result;
        bool many = false;
        bool ok = cross_product(operands, buf, 0, [&](const std::vector<std::string>& parts) {
            if (result) many = true;
            else result = join(parts, "");
        });
        if (!ok) return BuiltinResult::error("illegal argument type");
        if (many) return BuiltinResult::conflict("template-strings must not produce multiple outputs");
        return BuiltinResult::of(Value::string(result.value_or("")));
    });
}

}  // namespace gavel::stdlib
