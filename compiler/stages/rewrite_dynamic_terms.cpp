// Stage: refs and comprehensions given as operands are bound to variables
// first (OPA's rewriteDynamicTerms), evaluated eagerly before the expression:
//   foo(data.bar) = 1   ->   __local0__ = data.bar; foo(__local0__) = 1
// For a negated call this is what makes `not f(input.x)` undefined when
// input.x is. A ref that is itself a side of `=` or the whole expression
// stays where it is (only its dynamic parts move).

#include "compiler/ast/terms.hpp"
#include "compiler/stages/stages.hpp"
#include "lang/term_order.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;
using lang::TermPtr;

namespace {

class Dynamics {
public:
    explicit Dynamics(VarGenerator& gen) : gen_(gen) {}

    lang::Body body(lang::Body in) {
        const lang::Expr* enclosing = original_;  // nested bodies come back to the expression holding them
        lang::Body result;
        result.reserve(in.size());
        for (auto& e : in) {
            original_ = &e;
            if (is_equality(e)) {
                if (operand_count(e) == 2) {
                    in_term(e.term->elems[1], result);
                    in_term(e.term->elems[2], result);
                }
            } else if (is_call_expr(e)) {
                for (std::size_t i = 1; i < e.term->elems.size(); ++i) one(e.term->elems[i], result);
            } else if (e.kind == ExprKind::Every) {
                one(e.every.domain, result);
                *e.every.body = body(std::move(*e.every.body));
            } else if (e.kind == ExprKind::Block) {
                *e.body = body(std::move(*e.body));
            } else if (e.kind == ExprKind::LogicAnd || e.kind == ExprKind::LogicOr) {
                for (auto& c : e.children) {
                    if (c.kind == ExprKind::Block) {
                        *c.body = body(std::move(*c.body));
                    } else {
                        lang::Body one_expr = body(lang::Body{std::move(c)});
                        c = wrap(std::move(one_expr));
                    }
                }
            } else if (e.kind == ExprKind::Term) {
                in_term(e.term, result);
            }
            result.push_back(std::move(e));
        }
        original_ = enclosing;
        return result;
    }

private:
    // An implicit and/or operand stays one expression when nothing was hoisted out of it.
    static lang::Expr wrap(lang::Body b) {
        if (b.size() == 1) return std::move(b.front());
        lang::Expr block;
        block.kind = ExprKind::Block;
        block.loc = b.back().loc;
        block.implicit_body = true;
        block.body = std::make_shared<lang::Body>(std::move(b));
        return block;
    }

    // A bare `input` or `data` is a ref with no parts to OPA (its parser makes it one).
    static bool root_document(const Term& t) {
        return t.kind == TermKind::Var && (t.text == "input" || t.text == "data");
    }

    void in_term(TermPtr& t, lang::Body& result) {
        if (root_document(*t)) return;
        switch (t->kind) {
            case TermKind::Ref:
                for (std::size_t i = 1; i < t->elems.size(); ++i) one(t->elems[i], result);
                return;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension: *t->body = body(std::move(*t->body)); return;
            default: one(t, result); return;
        }
    }

    void one(TermPtr& t, lang::Body& result) {
        if (root_document(*t)) {
            hoist(t, result);
            return;
        }
        switch (t->kind) {
            case TermKind::Ref:
                for (std::size_t i = 1; i < t->elems.size(); ++i) one(t->elems[i], result);
                hoist(t, result);
                return;
            case TermKind::Array:
                for (auto& e : t->elems) one(e, result);
                return;
            case TermKind::Set:
                // OPA visits a set's elements in its term order: `{input.s, input.b}` binds
                // input.b first (which decides the order of strict errors and prints).
                lang::stable_sort_terms(t->elems);
                for (auto& e : t->elems) one(e, result);
                return;
            case TermKind::Object:
                lang::stable_sort_items(t->items);  // as a set's: OPA visits the items by key
                for (auto& [k, v] : t->items) {
                    one(k, result);
                    one(v, result);
                }
                return;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension:
                *t->body = body(std::move(*t->body));
                hoist(t, result);
                return;
            default: return;
        }
    }

    // `t` is bound to a fresh variable before the expression, under the expression's `with`.
    void hoist(TermPtr& t, lang::Body& result) {
        auto var = lang::make_var(gen_.next(), t->loc);
        lang::Expr bind = make_equality(var, t, t->loc, true);
        bind.withs = original_->withs;
        result.push_back(std::move(bind));
        t = lang::make_var(var->text, t->loc);
    }

    VarGenerator& gen_;
    const lang::Expr* original_ = nullptr;
};

}  // namespace

lang::Body rewrite_dynamic_terms_in(VarGenerator& gen, lang::Body body) { return Dynamics(gen).body(std::move(body)); }

void rewrite_dynamic_terms(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules)
        for (auto& rule : m->rules)
            for (lang::Rule* r = &rule; r; r = r->else_rule.get()) r->body = Dynamics(ctx.gen).body(std::move(r->body));
}

}  // namespace gavel::compiler
