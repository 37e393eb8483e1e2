// Stage: the variable generator, which must never produce a name the
// policies use themselves (OPA's initLocalVarGen).

#include "compiler/ast/var_visitor.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

void init_local_var_gen(CompileContext& ctx) {
    VarVisitor names;
    for (const lang::Module* m : ctx.modules) {
        for_each_rule(*m, [&](const lang::Rule& r) {
            names.walk_ref(*r.head.ref);
            names.walk_head_vars(r.head);
            names.walk(r.body);
        });
    }
    ctx.gen = VarGenerator("__local", names.vars());
}

}  // namespace gavel::compiler
