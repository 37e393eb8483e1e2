// Stage: rego.metadata.rule() and rego.metadata.chain() depend only on where
// they are written, so they become constants bound at the start of the rule
// (OPA's rewriteRegoMetadataCalls):
//   rule():  the nearest rule-scope `# METADATA` block of the rule, or {};
//   chain(): [{path, annotations}] from the rule outwards: the rule itself,
//            its document, its package, then enclosing `subpackages` scopes.
// A block's content is its YAML; the hidden builtin internal.rego_annotation
// gives it OPA's shape (stdlib/rego_metadata.cpp), so YAML is read once, by the
// same code that reads data files.

#include <algorithm>

#include "compiler/annotation_chain.hpp"
#include "compiler/ast/data_paths.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::TermKind;
using lang::TermPtr;

namespace {

bool is_call_of(const lang::Expr& e, std::string_view name) {
    return is_call_expr(e) && dotted_name(operator_of(*e.term)) == name;
}

TermPtr string_array(const std::vector<std::string>& parts, const lang::Location& loc) {
    auto t = lang::make_term(TermKind::Array, loc);
    for (const auto& p : parts) t->elems.push_back(lang::make_string(p, loc));
    return t;
}

TermPtr annotation_term(const lang::Annotation& a, const lang::Location& loc) {
    return lang::make_call("internal.rego_annotation",
                           {lang::make_string(a.yaml, loc), lang::make_string(a.scope, loc)}, loc, false);
}

TermPtr object(std::vector<std::pair<std::string, TermPtr>> items, const lang::Location& loc) {
    auto t = lang::make_term(TermKind::Object, loc);
    for (auto& [k, v] : items) t->items.emplace_back(lang::make_string(k, loc), std::move(v));
    return t;
}

TermPtr chain_entry(const std::vector<std::string>& path, const lang::Annotation* a, const lang::Location& loc) {
    if (!a) return object({{"path", string_array(path, loc)}}, loc);
    return object({{"annotations", annotation_term(*a, loc)}, {"path", string_array(path, loc)}}, loc);
}

TermPtr metadata_chain(const CompileContext& ctx, const lang::Module& module, const lang::Rule& rule, std::size_t index,
                       const lang::Location& loc) {
    auto out = lang::make_term(TermKind::Array, loc);
    std::vector<const lang::Module*> modules(ctx.modules.begin(), ctx.modules.end());
    auto chain = annotation_chain(modules, module, rule, index);
    // A rule with no block of its own still opens the chain, with its path alone.
    if (rule_scope_links(chain) == 0) out->elems.push_back(chain_entry(rule_path(module, rule), nullptr, loc));
    for (const auto& link : chain) out->elems.push_back(chain_entry(link.path, link.annotation, loc));
    return out;
}

// Each call `rego.metadata.X(out)` becomes `out = var` (or `var` without an output).
void replace_calls(lang::Body& body, std::string_view name, const std::string& var) {
    walk_exprs(body, [&](lang::Expr& e) {
        if (!is_call_of(e, name)) return false;
        const auto& elems = e.term->elems;
        lang::Location loc = e.loc;
        lang::Expr next = elems.size() > 1 ? make_equality(elems[1], lang::make_var(var, loc), loc, true)
                                           : lang::make_term_expr(lang::make_var(var, loc), loc);
        next.generated = true;
        e = std::move(next);
        return true;
    });
}

}  // namespace

void rewrite_rego_metadata_calls(CompileContext& ctx) {
    for (lang::Module* m : ctx.modules) {
        for (std::size_t index = 0; index < m->rules.size(); ++index) {
            for (lang::Rule* r = &m->rules[index]; r; r = r->else_rule.get()) {
                const lang::Expr* chain_call = nullptr;
                const lang::Expr* rule_call = nullptr;
                walk_rule_exprs(*r, [&](const lang::Expr& e) {
                    if (!chain_call && is_call_of(e, "rego.metadata.chain")) chain_call = &e;
                    else if (!rule_call && is_call_of(e, "rego.metadata.rule")) rule_call = &e;
                    return false;
                });
                if (!chain_call && !rule_call) continue;
                std::size_t annotated = r == &m->rules[index] ? index : static_cast<std::size_t>(-1);
                lang::Body prelude;
                std::string chain_var, rule_var;
                if (chain_call) {
                    chain_var = ctx.gen.next();
                    lang::Location loc = chain_call->loc;
                    prelude.push_back(make_equality(lang::make_var(chain_var, loc),
                                                    metadata_chain(ctx, *m, *r, annotated, loc), loc, true));
                }
                if (rule_call) {
                    rule_var = ctx.gen.next();
                    lang::Location loc = rule_call->loc;
                    std::vector<const lang::Module*> modules(ctx.modules.begin(), ctx.modules.end());
                    auto chain = annotation_chain(modules, *m, *r, annotated);  // the nearest rule-scope block opens it
                    TermPtr value = rule_scope_links(chain) == 0 ? lang::make_term(TermKind::Object, loc)
                                                                 : annotation_term(*chain.front().annotation, loc);
                    prelude.push_back(make_equality(lang::make_var(rule_var, loc), value, loc, true));
                }
                for (auto& e : r->body) append_to_body(prelude, std::move(e));
                r->body = std::move(prelude);
                for (auto* t : {&r->head.key, &r->head.value})
                    if (*t)
                        walk_terms(**t, [&](lang::Term& x) {
                            if (x.body && x.kind != TermKind::Template) {
                                if (!chain_var.empty()) replace_calls(*x.body, "rego.metadata.chain", chain_var);
                                if (!rule_var.empty()) replace_calls(*x.body, "rego.metadata.rule", rule_var);
                            }
                            return false;
                        });
                if (!chain_var.empty()) replace_calls(r->body, "rego.metadata.chain", chain_var);
                if (!rule_var.empty()) replace_calls(r->body, "rego.metadata.rule", rule_var);
            }
        }
    }
}

}  // namespace gavel::compiler
