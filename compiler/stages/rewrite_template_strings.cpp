// Stage: template strings (OPA's rewriteTemplateStrings). `$"a {x} b"`
// becomes internal.template_string(["a ", {x}, " b"]): text stays, a
// variable or a rule known to be defined is a one-element set, anything
// else is evaluated in a set comprehension of its own (with its `with`), so
// an undefined part shows `<undefined>`. A part using a variable that nothing
// in the body binds is "var x is undeclared"; a relation (walk) may not be a part.

#include <fmt/format.h>

#include "compiler/ast/output_vars.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;
using lang::TermPtr;

namespace {

bool is_constant_rule(const lang::Rule& r) {
    bool trivial_body = r.body.size() == 1 && r.body[0].kind == ExprKind::Term &&
                        r.body[0].term->kind == TermKind::Boolean && r.body[0].term->boolean;
    if (!trivial_body || !r.head.value) return false;
    const Term& v = *r.head.value;
    if (is_scalar(v) || v.kind == TermKind::Var) return true;
    return (v.kind == TermKind::Array || v.kind == TermKind::Object || v.kind == TermKind::Set) && is_ground(v);
}

// OPA's isRefToKnownDefinedRule: a ref to a rule that cannot be undefined.
bool known_defined_rule(const CompileContext& ctx, const Term& ref) {
    if (ref.kind != TermKind::Ref || ref.elems.size() < 2 || !is_ref_to(ref, "data")) return false;
    const auto* rules = ctx.rules_exact(ref);
    if (!rules || rules->empty()) return false;
    const lang::Rule& first = *rules->front();
    if (first.head.has_args) return false;
    if (first.is_default || !first.head.value) return true;
    if (rules->size() == 1) return is_constant_rule(first);
    for (std::size_t i = 1; i < rules->size(); ++i)
        if ((*rules)[i]->is_default) return true;
    return false;
}

class TemplateRewriter {
public:
    explicit TemplateRewriter(CompileContext& ctx) : ctx_(ctx) {}

    // The templates of a body; returns the variables safe in it (for a head to use).
    VarSet body(lang::Body& b, const VarSet& globals) {
        VarSet safe = output_vars_for_body(b, ctx_.arity_fn(), globals);
        add_all(safe, globals);
        for (auto& e : b) expr(e, safe);
        return safe;
    }

    void term(TermPtr& root, const VarSet& safe) {
        walk_terms(*root, [&](Term& t) {
            if (is_comprehension(t)) {
                VarSet inner = body(*t.body, safe);
                if (t.key) term(t.key, inner);
                term(t.value, inner);
                return true;
            }
            return false;
        });
        replace_templates(root, safe);
    }

private:
    void expr(lang::Expr& e, const VarSet& safe) {
        if (e.term) term(e.term, safe);
        if (e.some.in_call) term(e.some.in_call, safe);
        for (auto& w : e.withs) term(w.value, safe);
        switch (e.kind) {
            case ExprKind::Every: {
                term(e.every.domain, safe);
                VarSet inner = safe;
                if (e.every.key) add_all(inner, vars_of(*e.every.key));
                add_all(inner, vars_of(*e.every.value));
                body(*e.every.body, inner);
                break;
            }
            case ExprKind::Block: body(*e.body, safe); break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (auto& c : e.children) {
                    if (c.kind == ExprKind::Block) body(*c.body, safe);
                    else expr(c, safe);
                }
                break;
            default: break;
        }
    }

    // Every template string in `root` (not inside comprehensions, done above) becomes the builtin call.
    void replace_templates(TermPtr& root, const VarSet& safe) {
        if (root->kind == TermKind::Template) {
            root = rewrite(*root, safe);
            return;
        }
        if (is_comprehension(*root)) return;
        for (auto& e : root->elems) replace_templates(e, safe);
        for (auto& [k, v] : root->items) {
            replace_templates(k, safe);
            replace_templates(v, safe);
        }
    }

    TermPtr rewrite(Term& t, const VarSet& safe) {
        auto parts = lang::make_term(TermKind::Array, t.loc);
        if (t.body->empty()) parts->elems.push_back(lang::make_string("", t.loc));
        for (auto& p : *t.body) {
            if (p.kind == ExprKind::Term && p.term->kind == TermKind::String && p.withs.empty() && !p.negated) {
                parts->elems.push_back(p.term);
                continue;
            }
            TermPtr value = p.term;
            if (p.kind != ExprKind::Term || !value) {
                ctx_.error(p.loc, lang::codes::compile_error, "unexpected template-string expression type");
                continue;
            }
            if (value->kind == TermKind::Call) {
                const lang::BuiltinDecl* b = ctx_.builtin(dotted_name(operator_of(*value)));
                if (b && b->relation) {
                    ctx_.error(
                        p.loc, lang::codes::compile_error,
                        fmt::format("illegal call to relation built-in '{}' that may cause multiple outputs", b->name));
                    continue;
                }
            }
            // A template part is a term of its own: its templates, then its comprehensions' templates.
            term(value, safe);
            if (p.withs.empty() && (value->kind == TermKind::Var || known_defined_rule(ctx_, *value))) {
                auto set = lang::make_term(TermKind::Set, value->loc);
                set->elems.push_back(value);
                parts->elems.push_back(std::move(set));
                continue;
            }
            for (const auto& v : difference(vars_of(*value, safety_params()), safe))
                ctx_.error(value->loc, lang::codes::compile_error,
                           fmt::format("var {} is undeclared", display_var(ctx_.original_name(v))));
            auto x = lang::make_var(ctx_.gen.next(), value->loc);
            lang::Expr capture = make_equality(lang::make_var(x->text, value->loc), value, value->loc, false);
            capture.withs = p.withs;
            auto set = lang::make_term(TermKind::SetComprehension, value->loc);
            set->value = x;
            set->body = std::make_shared<lang::Body>();
            set->body->push_back(std::move(capture));
            parts->elems.push_back(std::move(set));
        }
        return lang::make_call("internal.template_string", {parts}, t.loc, false);
    }

    CompileContext& ctx_;
};

// Whether a template string occurs in the terms `visit` is given: rules and queries without
// one are left as they are, without the safe-variable sets the rewrite computes per body
// (copied into every nested comprehension, quadratic in a long body).
template <class Visit>
bool holds_template(Visit&& visit) {
    bool found = false;
    visit([&](Term& t) {
        found = found || t.kind == TermKind::Template;
        return found;
    });
    return found;
}

bool has_template(lang::Rule& r) {
    return holds_template([&](auto&& f) {
        for (auto* t : {&r.head.key, &r.head.value})
            if (*t) lang::walk_terms(**t, f);
        for (auto& a : r.head.args) lang::walk_terms(*a, f);
        lang::walk_terms_in_body(r.body, f);
    });
}

}  // namespace

void rewrite_template_strings(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules)
        for_each_rule(*m, [&](lang::Rule& r) {
            if (!has_template(r)) return;
            VarSet globals{"input", "data"};
            VarVisitorParams p;
            p.skip_template_strings = true;
            VarVisitor args(p);
            args.walk_args(r.head.args);
            add_all(globals, args.vars());
            TemplateRewriter rewriter(ctx);
            VarSet safe = rewriter.body(r.body, globals);
            for (auto* t : {&r.head.key, &r.head.value})
                if (*t) rewriter.term(*t, safe);
            for (auto& a : r.head.args) rewriter.term(a, safe);
        });
}

lang::Body rewrite_template_strings_in_query(CompileContext& ctx, lang::Body body) {
    if (holds_template([&](auto&& f) { lang::walk_terms_in_body(body, f); }))
        TemplateRewriter(ctx).body(body, VarSet{"input", "data"});
    return body;
}

}  // namespace gavel::compiler
