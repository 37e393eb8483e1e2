// Stage: nested calls become expressions of their own that bind an output
// variable, evaluated before the expression that used them (OPA's
// rewriteExprTerms):
//   x := f(g(y))   ->   g(y, __local0__); f(__local0__, __local1__); x = __local1__
// A call's operands are therefore evaluated before a negation: `not f(g(x))`
// is `g(x, t); not f(t)`, undefined when g(x) is. Comprehension heads and
// every's domain are treated the same way; the planner fuses what it can
// back together.

#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"
#include "lang/term_order.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;
using lang::TermPtr;

namespace {

class Expander {
public:
    explicit Expander(VarGenerator& gen) : gen_(gen) {}

    lang::Body body(lang::Body in) {
        lang::Body out;
        out.reserve(in.size());
        for (auto& e : in)
            for (auto& x : expr(std::move(e))) out.push_back(std::move(x));
        return out;
    }

    // The expressions that compute what `t` needs; `t` is replaced by its output.
    std::vector<lang::Expr> term(TermPtr& t) {
        std::vector<lang::Expr> support;
        switch (t->kind) {
            case TermKind::Call: {
                for (std::size_t i = 1; i < t->elems.size(); ++i) append(support, term(t->elems[i]));
                auto output = lang::make_var(gen_.next(), t->loc);
                TermPtr call = t;
                call->elems.push_back(output);
                lang::Expr e = lang::make_term_expr(call, t->loc);
                e.generated = true;
                support.push_back(std::move(e));
                t = lang::make_var(output->text, t->loc);
                return support;
            }
            case TermKind::Ref: return ref(*t);
            case TermKind::Set:
                lang::stable_sort_terms(t->elems);  // OPA rewrites a set's elements in its term order
                [[fallthrough]];
            case TermKind::Array:
                for (auto& e : t->elems) append(support, term(e));
                return support;
            case TermKind::Object:
                lang::stable_sort_items(t->items);  // OPA rewrites an object's items by key
                for (auto& [k, v] : t->items) {
                    append(support, term(k));
                    append(support, term(v));
                }
                return support;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension: {
                auto head = term(t->value);
                for (auto& e : head) append_to_body(*t->body, std::move(e));
                *t->body = body(std::move(*t->body));
                return {};
            }
            case TermKind::ObjectComprehension: {
                for (auto& e : term(t->key)) append_to_body(*t->body, std::move(e));
                for (auto& e : term(t->value)) append_to_body(*t->body, std::move(e));
                *t->body = body(std::move(*t->body));
                return {};
            }
            default: return {};
        }
    }

private:
    static void append(std::vector<lang::Expr>& into, std::vector<lang::Expr> more) {
        for (auto& e : more) into.push_back(std::move(e));
    }

    // A ref's parts; a ref on a composite or computed value first binds that value.
    std::vector<lang::Expr> ref(Term& r) {
        std::vector<lang::Expr> support;
        for (auto& e : r.elems) append(support, term(e));
        TermPtr& subject = r.elems[0];
        switch (subject->kind) {
            case TermKind::Array:
            case TermKind::Object:
            case TermKind::Set:
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension:
            case TermKind::Call: {
                auto var = lang::make_var(gen_.next(), subject->loc);
                support.push_back(make_equality(var, subject, subject->loc, true));
                subject = lang::make_var(var->text, subject->loc);
                break;
            }
            default: break;
        }
        return support;
    }

    std::vector<lang::Expr> expr(lang::Expr e) {
        std::vector<lang::Expr> result;
        for (auto& w : e.withs) append(result, term(w.value));
        switch (e.kind) {
            case ExprKind::Term:
                if (e.term->kind == TermKind::Call) {
                    for (std::size_t i = 1; i < e.term->elems.size(); ++i) {
                        auto extras = term(e.term->elems[i]);
                        for (auto& x : extras) x.withs = e.withs;
                        append(result, std::move(extras));
                    }
                } else {
                    auto extras = term(e.term);
                    for (auto& x : extras) x.withs = e.withs;
                    append(result, std::move(extras));
                }
                break;
            case ExprKind::Every: {
                auto var = lang::make_var(gen_.next(), e.every.domain->loc);
                lang::Expr eq = make_equality(var, e.every.domain, e.every.domain->loc, true);
                eq.withs = e.withs;
                append(result, expr(std::move(eq)));
                e.every.domain = lang::make_var(var->text, var->loc);
                *e.every.body = body(std::move(*e.every.body));
                break;
            }
            case ExprKind::Block: *e.body = body(std::move(*e.body)); break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (auto& c : e.children) {
                    if (c.kind == ExprKind::Block) {
                        *c.body = body(std::move(*c.body));
                    } else {
                        // An implicit operand is a body of its own: what it needs stays inside it.
                        lang::Body one = body(lang::Body{std::move(c)});
                        if (one.size() == 1) {
                            c = std::move(one.front());
                        } else {
                            lang::Expr block;
                            block.kind = ExprKind::Block;
                            block.loc = one.back().loc;
                            block.implicit_body = true;
                            block.body = std::make_shared<lang::Body>(std::move(one));
                            c = std::move(block);
                        }
                    }
                }
                break;
            case ExprKind::Some: break;
        }
        result.push_back(std::move(e));
        return result;
    }

    VarGenerator& gen_;
};

}  // namespace

lang::Body rewrite_expr_terms_in_body(VarGenerator& gen, lang::Body body) {
    return Expander(gen).body(std::move(body));
}

void rewrite_expr_terms(CompileContext& ctx) {
    Expander expander(ctx.gen);
    for (lang::Module* m : ctx.modules) {
        for_each_rule(*m, [&](lang::Rule& r) {
            for (auto& a : r.head.args)
                for (auto& e : expander.term(a)) append_to_body(r.body, std::move(e));
            for (TermPtr* t : {&r.head.key, &r.head.value})
                if (*t)
                    for (auto& e : expander.term(*t)) append_to_body(r.body, std::move(e));
            r.body = expander.body(std::move(r.body));
        });
    }
}

}  // namespace gavel::compiler
