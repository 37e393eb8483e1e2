// Stage: in modules, `a == b` becomes the unification `a = b` (OPA's
// rewriteEquals): after the safety check, so `==` still needs both sides
// bound, but evaluated as `=` (what matters for `not a == b`: its sides stay
// inside the negation). Queries keep `==`, whose value is true or false.

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

namespace {

bool rewrite_one(lang::Expr& e) {
    if (is_global_call(e, "equal") && operand_count(e) == 2) {
        lang::Location loc = e.term->elems[0]->loc;
        e.term->elems[0] = lang::make_ref({lang::make_var("eq", loc)}, loc);
    }
    return false;
}

}  // namespace

void rewrite_equals(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) for_each_rule(*m, [&](lang::Rule& r) { walk_rule_exprs(r, rewrite_one); });
}

void rewrite_equals_in(lang::Body& body) { walk_exprs(body, rewrite_one); }

}  // namespace gavel::compiler
