// Stage: a comprehension's head that needs evaluation (a ref, a nested
// comprehension) is bound in its body instead (OPA's rewriteComprehensionTerms):
//   [x[0] | x = y[_]]  ->  [__local0__ | x = y[_]; __local0__ = x[0]]
// so `[wanted[i] | true]` iterates i as the body would.

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;

namespace {

void bind_in_body(CompileContext& ctx, lang::TermPtr& head, lang::Body& body) {
    if (!requires_eval(*head)) return;
    auto var = lang::make_var(ctx.gen.next(), head->loc);
    append_to_body(body, make_equality(var, head, head->loc, true));
    head = lang::make_var(var->text, head->loc);
}

// Innermost first, as OPA's TransformComprehensions rewrites bottom-up.
template <class Walk>
void rewrite_all(CompileContext& ctx, Walk&& walk) {
    std::vector<lang::Term*> found;
    walk([&](lang::Term& t) {
        if (is_comprehension(t)) found.push_back(&t);
        return false;
    });
    for (auto it = found.rbegin(); it != found.rend(); ++it) {
        lang::Term& t = **it;
        if (t.kind == TermKind::ObjectComprehension) bind_in_body(ctx, t.key, *t.body);
        bind_in_body(ctx, t.value, *t.body);
    }
}

}  // namespace

void rewrite_comprehension_terms_in(CompileContext& ctx, lang::Body& body) {
    rewrite_all(ctx, [&](auto&& f) { walk_terms_in_body(body, f); });
}

void rewrite_comprehension_terms(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules)
        for_each_rule(*m, [&](lang::Rule& r) {
            rewrite_all(ctx, [&](auto&& f) {
                for (auto& a : r.head.args) walk_terms(*a, f);
                for (auto* t : {&r.head.key, &r.head.value})
                    if (*t) walk_terms(**t, f);
                walk_terms_in_body(r.body, f);
            });
        });
}

}  // namespace gavel::compiler
