#pragma once
// Helpers for the compiler's unit tests: compile modules written inline and
// show the result as text (each rule as `head if { body }` with the
// compiler's renamed variables), or the errors.

#include <string>
#include <vector>

#include "lang/term_string.hpp"
#include "lang/walk.hpp"
#include "compiler/compiler.hpp"
#include "lang/parse.hpp"

namespace gavel::test {

struct CompileOutcome {
    std::string rules;   // one line per rule clause
    std::string errors;  // "code: message" per line, with "row:col " first
};

inline std::string rule_text(const lang::Rule& r) {
    std::string out = r.is_default ? "default " : "";
    out += lang::to_string(*r.head.ref);
    if (r.head.has_args) {
        out += "(";
        for (std::size_t i = 0; i < r.head.args.size(); ++i) out += (i ? ", " : "") + lang::to_string(*r.head.args[i]);
        out += ")";
    }
    if (!r.head.value && r.head.key) out += " contains " + lang::to_string(*r.head.key);
    if (r.head.value) out += " = " + lang::to_string(*r.head.value);
    out += " if { " + lang::to_string(r.body) + " }";
    return out;
}

inline CompileOutcome compile_text(const std::vector<std::string>& texts, compiler::CompileOptions options = {},
                                   bool v0 = false) {
    CompileOutcome out;
    std::vector<lang::Module> parsed;
    lang::ParseOptions po;
    po.v0_compatible = v0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        auto r = lang::parse_module('m' + std::to_string(i) + ".rego", texts[i], po);
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

// The errors of one module ("row:col code: message" lines; empty: it compiles).
inline std::string errors_of(const std::string& text, bool v0 = false) { return compile_text(text, {}, v0).errors; }

// The rules of one module after every stage, one clause per line; the errors if it does not compile.
inline std::string rules_of(const std::string& text, bool v0 = false) {
    auto out = compile_text(text, {}, v0);
    return out.errors.empty() ? out.rules : "ERRORS: " + out.errors;
}

// A query compiled against modules: its body after the query stages, or its errors.
inline std::string query_of(const std::string& query, const std::vector<std::string>& modules = {},
                            compiler::QueryContext context = {}) {
    std::vector<lang::Module> parsed;
    for (std::size_t i = 0; i < modules.size(); ++i) {
        auto r = lang::parse_module('m' + std::to_string(i) + ".rego", modules[i]);
        if (!r.ok()) return "PARSE: " + r.diagnostics.format();
        parsed.push_back(std::move(*r.module));
    }
    std::vector<const lang::Module*> list;
    for (const auto& m : parsed) list.push_back(&m);
    auto compiled = compiler::compile_modules(list, {});
    if (!compiled.ok()) return "MODULES: " + compiled.diagnostics.format();
    auto q = lang::parse_query(query);
    if (!q.ok()) return "PARSE: " + q.diagnostics.format();
    auto result = compiler::compile_query(q.body, compiled, context);
    // Captured values ($termN) would print as `_`, as OPA prints them: show them as termN.
    lang::walk_terms_in_body(result.body, [](lang::Term& t) {
        if (t.kind == lang::TermKind::Var && t.text.rfind("$term", 0) == 0) t.text = t.text.substr(1);
        return false;
    });
    std::string out;
    for (const auto& d : result.diagnostics)
        out += std::to_string(d.line) + ":" + std::to_string(d.col) + " " + d.code + ": " + d.message + "\n";
    return out.empty() ? lang::to_string(result.body) : "ERRORS: " + out;
}

}  // namespace gavel::test
