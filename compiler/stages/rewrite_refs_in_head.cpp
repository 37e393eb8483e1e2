// Stage: a rule head key, value or argument that needs evaluation (a ref, a
// comprehension) is bound in the body instead (OPA's rewriteRefsInHead):
//   p[{"foo": data.foo[i]}] if { i < 100 }  ->  p[__local0__] if { i < 100; __local0__ = {"foo": data.foo[i]} }

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

void rewrite_refs_in_head(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules)
        for_each_rule(*m, [&](lang::Rule& r) {
            auto bind = [&](lang::TermPtr& t) {
                if (!t || !requires_eval(*t)) return;
                auto var = lang::make_var(ctx.gen.next(), t->loc);
                append_to_body(r.body, make_equality(var, t, t->loc, true));
                t = lang::make_var(var->text, t->loc);
            };
            bind(r.head.key);
            bind(r.head.value);
            for (auto& a : r.head.args) bind(a);
        });
}

}  // namespace gavel::compiler
