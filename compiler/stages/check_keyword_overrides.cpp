// Stage: in v1 modules (and in strict mode) rules, arguments and local
// variables may not be named `input` or `data` (OPA's checkRootDocumentOverrides).

#include <fmt/format.h>

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;

namespace {

bool reserved(const std::string& name) { return name == "input" || name == "data"; }

// `input := ...`: assignments to a root document name.
void check_assignments(CompileContext& ctx, const lang::Body& body, bool& stop) {
    walk_exprs(body, [&](const lang::Expr& e) {
        if (stop || !is_assignment(e) || operand_count(e) < 1) return false;
        const lang::Term& lhs = *operand(e, 0);
        std::string name = lhs.kind == TermKind::Var ? lhs.text : lhs.kind == TermKind::Ref ? dotted_name(lhs) : "";
        if (reserved(name) &&
            !ctx.error(e.loc, lang::codes::compile_error,
                       fmt::format("variables must not shadow {} (use a different variable name)", name)))
            stop = true;
        return false;
    });
}

}  // namespace

void check_keyword_overrides_in(CompileContext& ctx, const lang::Body& body) {
    bool stop = false;
    check_assignments(ctx, body, stop);
}

void check_keyword_overrides(CompileContext& ctx) {
    for (const lang::Module* m : ctx.modules) {
        if (!(ctx.options.strict || m->rego_v1)) continue;
        bool stop = false;
        for (const auto& rule : m->rules) {
            const auto& name = rule.head.ref->elems[0];
            if (name->kind == TermKind::Var && reserved(name->text) &&
                !ctx.error(rule.loc, lang::codes::compile_error,
                           fmt::format("rules must not shadow {} (use a different rule name)", name->text)))
                return;
            for (const auto& a : rule.head.args)
                if (a->kind == TermKind::Var && reserved(a->text) &&
                    !ctx.error(a->loc, lang::codes::compile_error,
                               fmt::format("args must not shadow {} (use a different variable name)", a->text)))
                    return;
        }
        for (const auto& rule : m->rules)
            for (const lang::Rule* r = &rule; r && !stop; r = r->else_rule.get()) check_assignments(ctx, r->body, stop);
        if (stop) return;
    }
}

}  // namespace gavel::compiler
