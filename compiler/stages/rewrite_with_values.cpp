// Stage: `with` modifiers (OPA's rewriteWithModifiers). The target must be
// input, a base or virtual document path that no rule covers only in part,
// or a function; a value that needs evaluation is bound first, so
// `[v | v := input.x with input.x as xs[_]]` iterates xs.

#include <map>

#include <fmt/format.h>

#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::ExprKind;
using lang::Term;
using lang::TermKind;

namespace {

bool is_function_node(const RuleTreeNode* node) {
    if (!node) return false;
    for (const auto* r : node->rules)
        if (r->head.has_args) return true;
    return false;
}

const RuleTreeNode* node_at(const CompileContext& ctx, const Term& ref) {
    if (!ctx.rule_tree || ref.kind != TermKind::Ref) return nullptr;
    const RuleTreeNode* node = ctx.rule_tree;
    for (const auto& p : ref.elems) {
        std::string key = tree_key(*p);
        if (key.empty() || !(node = node->child(key))) return nullptr;
    }
    return node;
}

// A builtin named by a var or a ref of string parts.
const lang::BuiltinDecl* builtin_named(const CompileContext& ctx, const Term& t) {
    if (t.kind != TermKind::Var && t.kind != TermKind::Ref) return nullptr;
    std::string name = dotted_name(t);
    return name.empty() ? nullptr : ctx.builtin(name);
}

// Whether `value` names a function (a rule of the tree or a builtin).
bool is_function_value(const CompileContext& ctx, const Term& value) {
    if (value.kind == TermKind::Ref && node_at(ctx, value)) return true;
    return builtin_named(ctx, value) != nullptr;
}

// nullopt: an error was reported; else whether the value must be bound first.
std::optional<bool> validate(CompileContext& ctx, lang::With& w) {
    Term& target = *w.target;
    // A builtin named as a value is a ref to it.
    if (w.value->kind == TermKind::Var && ctx.builtin(w.value->text)) w.value = lang::make_ref({w.value}, w.value->loc);
    if (is_ref_to(target, "data") && target.kind == TermKind::Ref) {
        const RuleTreeNode* node = ctx.rule_tree;
        for (std::size_t i = 0; node && i + 1 < target.elems.size(); ++i) {
            std::string key = tree_key(*target.elems[i]);
            const RuleTreeNode* child = key.empty() ? nullptr : node->child(key);
            if (!child) {
                node = nullptr;
                break;
            }
            if (!child->rules.empty()) {
                ctx.error(target.loc, lang::codes::compile_error,
                          "with keyword cannot partially replace virtual document(s)");
                return std::nullopt;
            }
            node = child;
        }
        if (node) {
            std::string key = tree_key(*target.elems.back());
            if (is_function_node(key.empty() ? nullptr : node->child(key)) && is_function_value(ctx, *w.value))
                return false;
        }
        if (w.value->kind == TermKind::Ref && is_function_node(node_at(ctx, *w.value))) return false;
        return requires_eval(*w.value);
    }
    if (is_ref_to(target, "data")) return requires_eval(*w.value);  // `with data as ...`
    if (is_ref_to(target, "input")) return requires_eval(*w.value);
    if (const lang::BuiltinDecl* b = builtin_named(ctx, target)) {
        if (target.kind == TermKind::Var) w.target = lang::make_ref({w.target}, target.loc);
        std::string error;
        if (b->name == "eq" || b->name == "rego.metadata.chain" || b->name == "rego.metadata.rule")
            error = fmt::format("with keyword replacing built-in function: replacement of \"{}\" invalid", b->name);
        else if (b->name.rfind("internal.", 0) == 0)
            error = fmt::format(
                "with keyword replacing built-in function: replacement of internal function \"{}\" invalid", b->name);
        else if (b->relation) error = "with keyword replacing built-in function: target must not be a relation";
        else if (!b->has_result())
            error = "with keyword replacing built-in function: target must not be a void function";
        if (!error.empty()) {
            ctx.error(w.target->loc, lang::codes::compile_error, error);
            return std::nullopt;
        }
        if (is_function_value(ctx, *w.value)) return false;
        return requires_eval(*w.value);
    }
    ctx.error(target.loc, lang::codes::type_error,
              "with keyword target must reference existing input, data, or a function");
    return std::nullopt;
}

// One body, not looking into nested ones (every body is visited by the caller).
bool rewrite_body(CompileContext& ctx, lang::Body& body) {
    lang::Body out;
    out.reserve(body.size());
    // Expressions split off one with modifiers (rewrite_expr_terms) share its values; OPA's
    // share the modifier itself, so its value is bound once, before the first of them.
    std::map<const Term*, std::string> bound;
    for (auto& e : body) {
        for (auto& w : e.withs) {
            if (auto it = bound.find(w.value.get()); it != bound.end()) {
                w.value = lang::make_var(it->second, w.value->loc);
                continue;
            }
            auto eval = validate(ctx, w);
            if (!eval) return false;
            if (*eval) {
                auto var = lang::make_var(ctx.gen.next(), w.value->loc);
                bound.emplace(w.value.get(), var->text);
                out.push_back(make_equality(var, w.value, w.value->loc, true));
                w.value = lang::make_var(var->text, w.value->loc);
            }
        }
        out.push_back(std::move(e));
    }
    body = std::move(out);
    return true;
}

// Every body of a rule or query, innermost first (as OPA's Transform visits them).
bool rewrite_all(CompileContext& ctx, lang::Body& body);

// The comprehension bodies in a term.
bool rewrite_in_term(CompileContext& ctx, Term& root) {
    bool ok = true;
    walk_terms(root, [&](Term& t) {
        if (ok && t.body && t.kind != TermKind::Template) ok = rewrite_all(ctx, *t.body);
        return t.body != nullptr && t.kind != TermKind::Template;
    });
    return ok;
}

bool rewrite_in_expr(CompileContext& ctx, lang::Expr& e) {
    bool ok = true;
    for (auto* t : {&e.term, &e.every.domain, &e.some.in_call})
        if (ok && *t) ok = rewrite_in_term(ctx, **t);
    for (auto& w : e.withs)
        if (ok) ok = rewrite_in_term(ctx, *w.value);
    if (ok && e.every.body) ok = rewrite_all(ctx, *e.every.body);
    if (ok && e.body) ok = rewrite_all(ctx, *e.body);
    for (auto& c : e.children) {
        if (!ok) break;
        if (c.kind == ExprKind::Block) ok = rewrite_all(ctx, *c.body);
        else ok = rewrite_in_expr(ctx, c);
    }
    return ok;
}

bool rewrite_all(CompileContext& ctx, lang::Body& body) {
    for (auto& e : body)
        if (!rewrite_in_expr(ctx, e)) return false;
    return rewrite_body(ctx, body);
}

}  // namespace

lang::Body rewrite_with_values_in(CompileContext& ctx, lang::Body body) {
    rewrite_all(ctx, body);
    return body;
}

void rewrite_with_values(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) {
        bool ok = true;
        for_each_rule(*m, [&](lang::Rule& r) {
            if (!ok) return;
            for (auto* t : {&r.head.key, &r.head.value})
                if (ok && *t) ok = rewrite_in_term(ctx, **t);
            if (ok) ok = rewrite_all(ctx, r.body);
        });
    }
}

}  // namespace gavel::compiler
