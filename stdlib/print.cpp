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

enum class Crossed { Done, BadOperand, Stopped };

// Calls `f` with each combination of the operands' values, as text, while it
// returns true. Their number is the product of the sets' sizes, and a value's
// text can be far larger than the value: each combination and its text is
// work, asked of the evaluation's budget (Stopped when it says stop).
// BadOperand: an operand is no string or set.
template <class F>
Crossed cross_product(std::span<const Value> operands, std::vector<std::string>& buf, std::size_t i,
                      BuiltinContext& ctx, F&& f) {
    if (i == 0)  // the first combination meets every operand: a bad one is an error before any output
        for (const auto& op : operands)
            if (!op.is_string() && !op.is_number() && !op.is_bool() && !op.is_null() && !op.is_set())
                return Crossed::BadOperand;
    if (i == operands.size()) {
        std::size_t bytes = 0;
        for (const auto& part : buf) bytes += part.size();
        if (ctx.spend(1 + bytes / 16)) return Crossed::Stopped;
        return f(buf) ? Crossed::Done : Crossed::Stopped;
    }
    auto text = [&](const Value& v) {
        buf[i].clear();
        if (v.is_string()) {
            buf[i] = v.as_string();
            return true;
        }
        return append_formatted(buf[i], v, ctx);
    };
    const Value& op = operands[i];
    if (op.is_string() || op.is_number() || op.is_bool() || op.is_null()) {
        if (!text(op)) return Crossed::Stopped;
        return cross_product(operands, buf, i + 1, ctx, f);
    }
    if (!op.is_set()) return Crossed::BadOperand;
    if (op.size() == 0) {
        buf[i] = "<undefined>";
        return cross_product(operands, buf, i + 1, ctx, f);
    }
    for (const auto& v : op.set_elements()) {
        if (!text(v)) return Crossed::Stopped;
        if (auto r = cross_product(operands, buf, i + 1, ctx, f); r != Crossed::Done) return r;
    }
    return Crossed::Done;
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
        ++ctx.prints;
        auto operands = a[0].array_elements();
        std::vector<std::string> buf(operands.size());
        auto crossed = cross_product(operands, buf, 0, ctx, [&](const std::vector<std::string>& parts) {
            std::string line = join(parts, " ");
            if (ctx.print) ctx.print(line);
            else std::cerr << line << "\n";
            return true;
        });
        if (crossed == Crossed::BadOperand) return BuiltinResult::error("illegal argument type");
        if (crossed == Crossed::Stopped) return BuiltinResult::cancelled();
        return BuiltinResult::of(Value::boolean(true));
    });
    declare(r, "internal.template_string", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        auto operands = a[0].array_elements();
        std::vector<std::string> buf(operands.size());
        std::optional<std::string> result;
        bool many = false;
        auto crossed = cross_product(operands, buf, 0, ctx, [&](const std::vector<std::string>& parts) {
            if (result) {
                many = true;
                return false;  // a second text is enough to know
            }
            result = join(parts, "");
            return true;
        });
        if (crossed == Crossed::BadOperand) return BuiltinResult::error("illegal argument type");
        if (many) return BuiltinResult::conflict("template-strings must not produce multiple outputs");
        if (crossed == Crossed::Stopped) return BuiltinResult::cancelled();
        return text_result(ctx, result.value_or(""));
    });
}

}  // namespace gavel::stdlib
