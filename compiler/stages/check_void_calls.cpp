// Stage: a call of a function without a result (print) cannot be used as a
// value: `x := print(1)` is "print(1) used as value" (OPA's checkVoidCalls).

#include <fmt/format.h>

#include <set>

#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;

namespace {

// Checks every call in `terms` that is not itself a statement.
template <class Walk>
void check(CompileContext& ctx, const std::set<const lang::Term*>& statements, Walk&& walk) {
    bool ok = true;
    walk([&](const lang::Term& t) {
        if (!ok) return true;
        if (t.kind != TermKind::Call || statements.count(&t)) return false;
        const lang::BuiltinDecl* b = ctx.builtin(dotted_name(operator_of(t)));
        if (b && !b->has_result())
            ok = ctx.error(t.loc, lang::codes::type_error, fmt::format("{} used as value", to_string(t)));
        return false;
    });
}

std::set<const lang::Term*> statements_of(const lang::Body& body) {
    std::set<const lang::Term*> out;
    walk_exprs(body, [&](const lang::Expr& e) {
        if (is_call_expr(e)) out.insert(e.term.get());
        return false;
    });
    return out;
}

}  // namespace

void check_void_calls_in(CompileContext& ctx, const lang::Body& body) {
    check(ctx, statements_of(body), [&](auto&& f) { walk_terms_in_body(body, f); });
}

void check_void_calls(CompileContext& ctx) {
    for (const lang::Module* m : ctx.modules)
        for_each_rule(*m, [&](const lang::Rule& r) {
            std::set<const lang::Term*> statements;
            walk_rule_exprs(r, [&](const lang::Expr& e) {
                if (is_call_expr(e)) statements.insert(e.term.get());
                return false;
            });
            for (const auto* t : {&r.head.key, &r.head.value})
                if (*t) check(ctx, statements, [&](auto&& f) { walk_terms(**t, f); });
            check(ctx, statements, [&](auto&& f) { walk_terms_in_body(r.body, f); });
        });
}

}  // namespace gavel::compiler
