// Stage: print statements (OPA's rewritePrintCalls). Each operand is
// evaluated in a set comprehension of its own, so an undefined operand
// prints `<undefined>` instead of ending the body:
//   print("x is", input.x)  ->  internal.print([{__local0__ | __local0__ = "x is"},
//                                               {__local1__ | __local1__ = input.x}])
// An operand that uses a variable nothing before the print binds is an error
// ("var x is undeclared").

#include <fmt/format.h>

#include "compiler/ast/output_vars.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::TermKind;

namespace {

bool is_print_call(const lang::Expr& e) { return is_call_expr(e) && dotted_name(operator_of(*e.term)) == "print"; }

// Whether a print call is in the expression or any closure in it.
bool holds_print_call(lang::Expr& e) {
    bool found = false;
    walk_exprs_in_expr(e, [&](const lang::Expr& x) {
        found = found || is_print_call(x);
        return found;
    });
    return found;
}

class PrintRewriter {
public:
    explicit PrintRewriter(CompileContext& ctx) : ctx_(ctx) {}

    // false when an error stopped it.
    bool body(lang::Body& b, const VarSet& globals) {
        for (std::size_t i = 0; i < b.size(); ++i) {
            // Only a closure with a print call in it has anything to rewrite or
            // check; skipping the others keeps long print-free bodies linear.
            if (!contains_closure(b[i]) || !holds_print_call(b[i])) continue;
            lang::Body before(b.begin(), b.begin() + static_cast<long>(i));
            VarSet safe = output_vars_for_body(before, ctx_.arity_fn(), globals);
            add_all(safe, globals);
            if (!closures(b[i], safe)) return false;
        }
        for (std::size_t i = 0; i < b.size(); ++i) {
            if (!is_print_call(b[i])) continue;
            lang::Body before(b.begin(), b.begin() + static_cast<long>(i));
            VarSet safe = output_vars_for_body(before, ctx_.arity_fn(), globals);
            add_all(safe, globals);
            bool ok = true;
            const auto& args = b[i].term->elems;
            for (std::size_t j = 1; j < args.size(); ++j)
                for (const auto& v : difference(vars_of(*args[j], safety_params()), safe)) {
                    ok = false;
                    if (!ctx_.error(args[j]->loc, lang::codes::compile_error,
                                    fmt::format("var {} is undeclared", display_var(ctx_.original_name(v)))))
                        return false;
                }
            if (!ok) return false;
            lang::Location loc = b[i].loc;
            std::vector<lang::TermPtr> captured;
            for (std::size_t j = 1; j < args.size(); ++j) {
                auto x = lang::make_var(ctx_.gen.next(), args[j]->loc);
                auto set = lang::make_term(TermKind::SetComprehension, args[j]->loc);
                set->value = x;
                set->body = std::make_shared<lang::Body>();
                set->body->push_back(
                    make_equality(lang::make_var(x->text, args[j]->loc), args[j], args[j]->loc, false));
                captured.push_back(std::move(set));
            }
            auto array = lang::make_term(TermKind::Array, loc);
            array->elems = std::move(captured);
            b[i] = lang::make_term_expr(lang::make_call("internal.print", {array}, loc, false), loc);
        }
        return true;
    }

private:
    // The closures of an expression, each body with what is safe around it.
    bool closures(lang::Expr& e, VarSet& safe) {
        bool ok = true;
        auto in_terms = [&](lang::Term& root) {
            walk_terms(root, [&](lang::Term& t) {
                if (!ok) return true;
                if (is_comprehension(t)) {
                    ok = body(*t.body, safe);
                    return true;
                }
                return false;
            });
        };
        if (e.term) in_terms(*e.term);
        switch (e.kind) {
            case ExprKind::Every:
                in_terms(*e.every.domain);
                if (e.every.key) add_all(safe, vars_of(*e.every.key));
                add_all(safe, vars_of(*e.every.value));
                if (ok) ok = body(*e.every.body, safe);
                break;
            case ExprKind::Block:
                if (ok) ok = body(*e.body, safe);
                break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (auto& c : e.children) {
                    if (!ok) break;
                    if (c.kind == ExprKind::Block) {
                        ok = body(*c.body, safe);
                    } else {
                        lang::Body one{std::move(c)};
                        ok = body(one, safe);
                        c = std::move(one.front());
                    }
                }
                break;
            default: break;
        }
        for (auto& w : e.withs)
            if (ok) in_terms(*w.value);
        return ok;
    }

    CompileContext& ctx_;
};

VarSet rule_globals(const lang::Rule& r) {
    VarSet g{"input", "data"};
    VarVisitor args;
    args.walk_args(r.head.args);
    add_all(g, args.vars());
    return g;
}

}  // namespace

void rewrite_print_calls(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) {
        bool ok = true;
        for_each_rule(*m, [&](lang::Rule& r) {
            if (!ok) return;
            PrintRewriter rewriter(ctx);
            VarSet globals = rule_globals(r);
            for (auto* t : {&r.head.key, &r.head.value}) {
                if (!*t) continue;
                walk_terms(**t, [&](lang::Term& x) {
                    if (ok && is_comprehension(x)) ok = rewriter.body(*x.body, globals);
                    return is_comprehension(x);
                });
            }
            if (ok) ok = rewriter.body(r.body, globals);
        });
        if (!ok) return;
    }
}

lang::Body rewrite_print_calls_in_query(CompileContext& ctx, lang::Body body) {
    PrintRewriter rewriter(ctx);
    rewriter.body(body, VarSet{"input", "data"});
    return body;
}

}  // namespace gavel::compiler
