// Stage: every variable of a rule body is bound before it is needed, the body
// reordered where that makes it so (OPA's checkSafetyRuleBodies):
// `p if { x > 1; x := 2 }` runs as `x := 2; x > 1`; `p if { m > 1 }` is
// "var m is unsafe".

#include "compiler/safety.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

namespace {

void check(CompileContext& ctx, const VarSet& globals, lang::Body& body) {
    report_unsafe(ctx, reorder_body_for_safety(ctx.arity_fn(), globals, body));
}

}  // namespace

void check_safety_rule_bodies(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules)
        for_each_rule(*m, [&](lang::Rule& r) {
            VarSet globals{"input", "data"};
            VarVisitor args;
            args.walk_args(r.head.args);
            add_all(globals, args.vars());
            check(ctx, globals, r.body);
        });
}

lang::Body check_query_safety(CompileContext& ctx, lang::Body body) {
    check(ctx, VarSet{"input", "data"}, body);
    return body;
}

}  // namespace gavel::compiler
