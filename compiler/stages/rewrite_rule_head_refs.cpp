// Stage: a rule head ref part that is neither a variable nor a scalar is
// bound in the body instead, the only shape the rule tree and the planner
// know (OPA's rewriteRuleHeadRefs):
//   p.q[a.b] if { ... }  ->  p.q[__local0__] if { ...; __local0__ = a.b }

#include "compiler/ast/terms.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;

void rewrite_rule_head_refs(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) {
        for (auto& rule : m->rules) {
            auto& ref = rule.head.ref->elems;
            for (std::size_t i = 1; i < ref.size(); ++i) {
                if (ref[i]->kind == TermKind::Var || is_scalar(*ref[i])) continue;
                auto var = lang::make_var(ctx.gen.next(), ref[i]->loc);
                lang::Expr bind = make_equality(var, ref[i], ref[i]->loc, true);
                if (i + 1 == ref.size() && rule.head.key == ref[i]) rule.head.key = var;
                ref[i] = var;
                append_to_body(rule.body, std::move(bind));
            }
        }
    }
}

}  // namespace gavel::compiler
