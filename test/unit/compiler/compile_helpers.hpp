#pragma once
// Helpers for the compiler's unit tests: compile modules written inline and
// show the result as text (each rule as `head if { body }` with the
// compiler's renamed variables), or the errors.

#include <string>
#include <vector>

#include "compiler/ast/term_string.hpp"
#include "compiler/compiler.hpp"
#include "lang/parse.hpp"

namespace gavel::test {

struct CompileOutcome {
    std::string rules;   // one line per rule clause
    std::string errors;  // "code: message" per line, with "row:col " first
};

inline std::string rule_text(const lang::Rule& r) {
    std::string out = r.is_default ? "default " : "";
    out += compiler::to_string(*r.head.ref);
    if (r.head.has_args) {
        out += "(";
        for (std::size_t i = 0; i < r.head.args.size(); ++i) out += (i ? ", " : "") + compiler::to_string(*r.head.args[i]);
        out += ")";
    }
    if (!r.head.value && r.head.key) out += " contains " + compiler::to_string(*r.head.key);
    if (r.head.value) out += " = " + compiler::to_string(*r.head.value);
    out += " if { " + compiler::to_string(r.body) + " }";
    return out;
}

inline CompileOutcome compile_text(const std::vector<std::string>& texts, compiler::CompileOptions options = {},
                                   bool v0 = false) {
    CompileOutcome out;
    std::vector<lang::Module> parsed;
    lang::ParseOptions po;
    po.v0_compatible = v0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        auto r = lang::parse_module("m" + std::to_string(i) + ".rego", texts[i], po);
        if (!r.ok()) {
            out.errors = "PARSE: " + r.diagnostics.format();
            return out;
        }
        parsed.push_back(std::move(*r.module));
    }
    std::vector<const lang::Module*> list;
    for (const auto& m : parsed) list.push_back(&m);
    auto compiled = compiler::compile_modules(list, options);
    for (const auto& d : compiled.diagnostics)
        out.errors += std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.code + ": " + d.message + "\n";
    for (const auto& m : compiled.modules)
        for (const auto& r : m->rules)
            for (const lang::Rule* c = &r; c; c = c->else_rule.get()) out.rules += rule_text(*c) + "\n";
    return out;
}

inline CompileOutcome compile_text(const std::string& text, compiler::CompileOptions options = {}, bool v0 = false) {
    return compile_text(std::vector<std::string>{text}, options, v0);
}

}  // namespace gavel::test
