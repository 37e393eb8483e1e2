// Stage: every variable of a rule's head is bound by its body or arguments
// (OPA's checkSafetyRuleHeads): `p[x] if { true }` is "var x is unsafe".

#include <fmt/format.h>

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

void check_safety_rule_heads(CompileContext& ctx) {
    for (const lang::Module* m : ctx.modules) {
        bool ok = true;
        for_each_rule(*m, [&](const lang::Rule& r) {
            if (!ok || !head_may_have_vars(r.head)) return;
            VarVisitor bound(safety_params());
            bound.walk(r.body);
            VarVisitor args;
            args.walk_args(r.head.args);
            // `input` and `data` are always bound: OPA's parser makes them refs, which the
            // head rewrite then binds in the body.
            VarSet safe{"input", "data"};
            add_all(safe, bound.vars());
            add_all(safe, args.vars());
            VarVisitor head;
            head.walk_head_vars(r.head);
            for (const auto& v : difference(head.vars(), safe)) {
                std::string name = ctx.original_name(v);
                if (is_generated_var(name)) continue;
                // At the rule, as OPA reports it (its error has the rule's location).
                if (!ctx.error(r.loc, lang::codes::unsafe_var_error,
                               fmt::format("var {} is unsafe", display_var(name)))) {
                    ok = false;
                    return;
                }
            }
        });
        if (!ok) return;
    }
}

}  // namespace gavel::compiler
