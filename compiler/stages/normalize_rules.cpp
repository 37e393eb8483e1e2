// Stage 0: the module in the shape OPA's parser builds (lang/normalize_module.hpp:
// chained bodies as rules of their own, generated values and bodies, else
// clauses with their rule's head, `_` named apart), and what only the compiler
// adds: with `import future.keywords.not`, `not x` negates the whole
// expression, so it becomes a negated block of that one expression.

#include "compiler/ast/terms.hpp"
#include "compiler/stages/stages.hpp"
#include "lang/normalize_module.hpp"
#include "lang/walk.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::TermKind;

namespace {

bool imports_future_not(const lang::Module& m) {
    for (const auto& imp : m.imports)
        if (dotted_name(*imp.path) == "future.keywords.not") return true;
    return false;
}

// `not x` of a future.keywords.not module: a negated block holding `x` (its `with` stays outside).
void wrap_negations(lang::Body& body) {
    lang::walk_exprs(body, [](lang::Expr& e) {
        if (!e.negated || e.kind == ExprKind::Block) return false;
        lang::Expr inner = std::move(e);
        inner.negated = false;
        lang::Expr wrapper;
        wrapper.kind = ExprKind::Block;
        wrapper.loc = inner.loc;
        wrapper.negated = true;
        wrapper.implicit_body = true;
        wrapper.withs = std::move(inner.withs);
        inner.withs.clear();
        wrapper.body = std::make_shared<lang::Body>();
        wrapper.body->push_back(std::move(inner));
        e = std::move(wrapper);
        return false;
    });
}

}  // namespace

void normalize_rules(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) {
        lang::normalize_module(*m);
        if (!imports_future_not(*m)) continue;
        lang::for_each_rule(*m, [](lang::Rule& r) {
            wrap_negations(r.body);
            for (auto* t : {&r.head.key, &r.head.value})
                if (*t)
                    lang::walk_terms(**t, [](lang::Term& x) {
                        if (x.body && x.kind != TermKind::Template) wrap_negations(*x.body);
                        return false;
                    });
        });
    }
}

}  // namespace gavel::compiler
