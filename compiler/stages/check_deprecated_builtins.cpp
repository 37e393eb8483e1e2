// Stage: deprecated builtins (any, all, re_match, set_diff ...) may only be
// called from v0 modules, and not at all in strict mode (OPA's
// checkDeprecatedBuiltins; for v1 modules OPA's parser checks the same).

#include <fmt/format.h>

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;

void check_deprecated_builtins_in(CompileContext& ctx, const lang::Body& body, bool check) {
    if (!check) return;
    bool stop = false;
    auto deprecated = [&](const lang::Term& op) {
        const lang::BuiltinDecl* b = ctx.builtin(dotted_name(op));
        return b && b->deprecated ? b : nullptr;
    };
    // Call expressions at the expression's location, nested calls at their operator's.
    walk_exprs(body, [&](const lang::Expr& e) {
        if (stop) return true;
        if (is_call_expr(e))
            if (const auto* b = deprecated(operator_of(*e.term)))
                stop = !ctx.error(e.loc, lang::codes::type_error,
                                  fmt::format("deprecated built-in function calls in expression: {}", b->name));
        walk_own_terms(e, [&](const lang::Term& t) {
            if (stop || t.body) return true;
            if (t.kind == TermKind::Call && !(is_call_expr(e) && &t == e.term.get()))
                if (const auto* b = deprecated(operator_of(t)))
                    stop = !ctx.error(t.elems[0]->loc, lang::codes::type_error,
                                      fmt::format("deprecated built-in function calls in expression: {}", b->name));
            return false;
        });
        return false;
    });
}

void check_deprecated_builtins(CompileContext& ctx) {
    // OPA looks only when the type checker met a call of a deprecated builtin (its
    // Required.Builtins): one called only inside `every` bodies goes unnoticed.
    bool needed = false;
    for (const auto& name : ctx.called_by_checked_exprs)
        if (const lang::BuiltinDecl* b = ctx.builtin(name); b && b->deprecated) needed = true;
    if (!needed) return;
    for (const lang::Module* m : ctx.modules) {
        if (!(ctx.options.strict || m->rego_v1)) continue;
        for_each_rule(*m, [&](const lang::Rule& r) {
            check_deprecated_builtins_in(ctx, r.body, true);
            for (const auto* t : {&r.head.key, &r.head.value})
                if (*t)
                    walk_terms(**t, [&](const lang::Term& x) {
                        if (x.body && x.kind != TermKind::Template) check_deprecated_builtins_in(ctx, *x.body, true);
                        return x.body != nullptr;
                    });
        });
    }
}

}  // namespace gavel::compiler
