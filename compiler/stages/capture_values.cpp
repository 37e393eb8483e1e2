// Query stage (OPA's rego RewriteToCaptureValue, right after resolving refs):
// each expression that is not negated, an assignment or a unification keeps
// its value in a variable `$termN`, which the result reports:
//   data.q.allow      ->  data.q.allow = $term1
//   neq(1, 2)         ->  neq(1, 2, $term2)      (a call that has no output yet)
// With more than one expression, or iteration, the captured value must also
// be true, as the expression alone would require: `$term1` is appended as a
// generated expression. A single `1 == 2` therefore answers false, not undefined.

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;

namespace {

// OPA's iteration(): a ref with a variable part, or a relation, outside comprehensions.
bool iterates(const CompileContext& ctx, const lang::Body& body) {
    bool found = false;
    walk_terms_in_body(body, [&](const lang::Term& t) {
        if (found || is_comprehension(t)) return true;
        if (t.kind == TermKind::Ref) {
            if (const lang::BuiltinDecl* b = ctx.builtin(dotted_name(t)); b && b->relation) found = true;
            for (std::size_t i = 1; i < t.elems.size(); ++i) found |= t.elems[i]->kind == TermKind::Var;
        }
        return found;
    });
    return found;
}

}  // namespace

lang::Body capture_values(CompileContext& ctx, lang::Body body) {
    bool check = iterates(ctx, body) || body.size() > 1;
    std::size_t next = 0;
    std::vector<lang::Expr> checks;
    for (auto& e : body) {
        if (e.negated || is_assignment(e) || is_equality(e)) continue;
        if (e.kind != lang::ExprKind::Term) continue;
        lang::TermPtr capture;
        if (e.term->kind != TermKind::Call) {
            capture = lang::make_var("$term" + std::to_string(++next), e.term->loc);
            e.term = lang::make_call("eq", {e.term, capture}, e.term->loc, true);
        } else {
            const lang::BuiltinDecl* b = ctx.builtin(dotted_name(operator_of(*e.term)));
            int arity = ctx.arity(operator_of(*e.term));
            bool void_call = b && !b->has_result();
            if (!void_call && arity >= 0 && static_cast<std::size_t>(arity) == e.term->elems.size() - 1) {
                capture = lang::make_var("$term" + std::to_string(++next), e.term->loc);
                e.term->elems.push_back(capture);
            }
        }
        if (capture && check) {
            lang::Expr test = lang::make_term_expr(lang::make_var(capture->text, e.loc), e.loc);
            test.generated = true;
            checks.push_back(std::move(test));
        }
    }
    for (auto& c : checks) body.push_back(std::move(c));
    return body;
}

}  // namespace gavel::compiler
