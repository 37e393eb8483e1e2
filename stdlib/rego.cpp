// The `rego` and `opa` families: rego.parse_module, rego.metadata.rule/chain,
// opa.runtime, and trace.

#include <fmt/format.h>

#include "lang/ast_json.hpp"
#include "lang/parse.hpp"
#include "runtime/json.hpp"
#include "stdlib/builtin_helpers.hpp"
#include "stdlib/rego_metadata.hpp"

namespace gavel::stdlib {

namespace {

BuiltinResult parse_module(Args a, BuiltinContext&) {
    if (!a[0].is_string()) return type_error(1, "string", a[0]);
    // OPA names the module text "operand 1" too (its StringOperand call passes 1 for both).
    if (!a[1].is_string()) return type_error(1, "string", a[1]);
    auto parsed = lang::parse_module(std::string(a[0].as_string()), std::string(a[1].as_string()));
    if (!parsed.ok()) return BuiltinResult::error(parsed.diagnostics.opa_text());
    auto json = runtime::parse_json(lang::module_to_json(*parsed.module));
    if (!json) return BuiltinResult::error("cannot represent the module as JSON: " + json.error.message);
    return BuiltinResult::of(std::move(json.value));
}

}  // namespace

void register_rego(Registry& r) {
    declare(r, "rego.parse_module", 2, parse_module);
    // Inside a rule the compiler replaces these calls by the rule's annotations
    // (compiler/stages/rewrite_rego_metadata_calls.cpp): a call left to evaluate is in a query, which has
    // no rule, and is an error there, as in OPA.
    for (const char* name : {"rego.metadata.rule", "rego.metadata.chain"})
        declare(r, name, 0, [name](Args, BuiltinContext&) {
            return BuiltinResult::error(
                fmt::format("the {} function must only be called within the scope of a rule", name));
        });
    declare(r, "internal.rego_annotation", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_string() || !a[1].is_string()) return type_error(1, "string", a[0]);
        return BuiltinResult::of(annotation_object(a[0].as_string(), a[1].as_string()));
    });
    {
        Builtin b;
        b.name = "opa.runtime";
        b.arity = 0;
        b.impl = [](Args, BuiltinContext& ctx) {
            return BuiltinResult::of(ctx.runtime_info.is_object() ? ctx.runtime_info : Value::empty_object());
        };
        r.add(std::move(b));
    }
    declare(r, "trace", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_string()) return type_error(1, "string", a[0]);
        if (ctx.trace) ctx.trace(a[0].as_string());
        return BuiltinResult::of(Value::boolean(true));
    });
    // OPA's test runner names the cases of a parameterized test with this call;
    // gavel's runner sees it as a trace note and the statement holds.
    declare(r, "internal.test_case", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        if (ctx.trace) ctx.trace("test case: " + runtime::to_json(a[0]));
        return BuiltinResult::of(Value::boolean(true));
    });
}

}  // namespace gavel::stdlib
