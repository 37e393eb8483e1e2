// Stage: every call names a known function with the right number of
// operands (OPA's checkUndefinedFuncs): "undefined function f", and for a
// builtin "count: arity mismatch" with what was given and what it takes
// (`have: (number, number)`, `want: (collection: any<...>)`).
// A call may pass one operand more than the arity: the output variable.

#include <fmt/format.h>

#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"
#include "compiler/types/builtin_types.hpp"
#include "compiler/types/checker.hpp"

namespace gavel::compiler {

using lang::Term;
using lang::TermKind;

namespace {

std::string display_ref(const CompileContext& ctx, const Term& op) {
    auto copy = std::make_shared<Term>(op);
    for (auto& p : copy->elems)
        if (p->kind == TermKind::Var) {
            auto v = std::make_shared<Term>(*p);
            v->text = ctx.original_name(v->text);
            p = v;
        }
    return to_string(*copy);
}

lang::Diagnostic arity_error(const CompileContext& ctx, const lang::Expr& e, const Term& op, int want,
                             std::size_t have) {
    std::string name = display_ref(ctx, op);
    if (const lang::BuiltinDecl* b = ctx.builtin(dotted_name(op))) {
        // As OPA: the operands' types as known before type checking (builtins
        // only: a ref into data or input is `any`, a variable unknown), and the
        // builtin's arguments with their names.
        types::EnvPtr env = types::builtin_env(ctx.options.custom_builtins);
        types::Checker checker([&ctx](const std::string& v) { return ctx.original_name(v); });
        std::vector<types::TypePtr> operands;
        for (std::size_t i = 1; i < e.term->elems.size(); ++i)
            operands.push_back(checker.type_of(env, *e.term->elems[i]));
        types::TypePtr fn = types::function_type(*b);
        return types::arg_error(e.loc, name, "arity mismatch", operands, *fn, false).diagnostic();
    }
    return lang::Diagnostic::at(
        e.loc, lang::codes::type_error,
        fmt::format("function {} has arity {}, got {} argument{}", name, want, have, have == 1 ? "" : "s"));
}

}  // namespace

void check_undefined_funcs_in(CompileContext& ctx, const lang::Body& body) {
    bool stop = false;
    walk_exprs(body, [&](const lang::Expr& e) {
        if (stop || !is_call_expr(e)) return stop;
        const Term& op = operator_of(*e.term);
        std::size_t operands = e.term->elems.size() - 1;
        int arity = ctx.arity(op);
        if (arity >= 0) {
            // As OPA: a call with a fitting arity is looked into (its operands
            // may hold comprehensions with calls of their own); a wrong one is not.
            auto want = static_cast<std::size_t>(arity);
            bool mismatch =
                e.generated ? !is_equality(e) && operands != want + 1 : operands != want && operands != want + 1;
            if (!mismatch) return false;
            if (!ctx.error(arity_error(ctx, e, op, arity, e.generated ? operands - 1 : operands))) stop = true;
            return true;
        }
        if (!ctx.error(e.loc, lang::codes::type_error, fmt::format("undefined function {}", display_ref(ctx, op))))
            stop = true;
        return true;
    });
}

void check_undefined_funcs(CompileContext& ctx) {
    for (const lang::Module* m : ctx.modules) {
        for_each_rule(*m, [&](const lang::Rule& r) {
            check_undefined_funcs_in(ctx, r.body);
            for (const auto* t : {&r.head.key, &r.head.value})
                if (*t)
                    walk_terms(**t, [&](const Term& x) {
                        if (x.body && x.kind != TermKind::Template) check_undefined_funcs_in(ctx, *x.body);
                        return x.body != nullptr;
                    });
        });
    }
}

}  // namespace gavel::compiler
