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

#include "compiler/ast/data_paths.hpp"
#include "compiler/ast/terms.hpp"
#include "compiler/ast/walk.hpp"
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
    return lang::make_call("internal.rego_annotation", {lang::make_string(a.yaml, loc), lang::make_string(a.scope, loc)},
                           loc, false);
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

// The rule-scope blocks of the rule at `index`, nearest (last written) first.
std::vector<const lang::Annotation*> rule_scope(const lang::Module& m, std::size_t index) {
    std::vector<const lang::Annotation*> out;
    for (const auto& a : m.annotations)
        if (a.rule_index == index && a.scope == "rule") out.push_back(&a);
    std::reverse(out.begin(), out.end());
    return out;
}

TermPtr metadata_chain(const CompileContext& ctx, const lang::Module& module, const lang::Rule& rule, std::size_t index,
                       const lang::Location& loc) {
    auto out = lang::make_term(TermKind::Array, loc);
    const auto path = rule_path(module, rule);
    auto blocks = rule_scope(module, index);
    if (blocks.empty()) out->elems.push_back(chain_entry(path, nullptr, loc));
    for (const auto* a : blocks) out->elems.push_back(chain_entry(path, a, loc));
    const auto pkg = package_path(module);
    const lang::Annotation* document = nullptr;
    const lang::Annotation* package = nullptr;
    std::vector<std::pair<std::size_t, const lang::Annotation*>> subpackages;  // by package depth
    for (const lang::Module* m : ctx.modules) {
        const auto mpkg = package_path(*m);
        for (const auto& a : m->annotations) {
            if (a.scope == "document" && a.rule_index < m->rules.size() && rule_path(*m, m->rules[a.rule_index]) == path) {
                if (!document) document = &a;
            } else if (a.on_package && a.scope == "package" && mpkg == pkg) {
                if (!package) package = &a;
            } else if (a.on_package && a.scope == "subpackages" && mpkg.size() <= pkg.size() &&
                       std::equal(mpkg.begin(), mpkg.end(), pkg.begin())) {
                subpackages.emplace_back(mpkg.size(), &a);
            }
        }
    }
    if (document) out->elems.push_back(chain_entry(path, document, loc));
    if (package) out->elems.push_back(chain_entry(pkg, package, loc));
    std::stable_sort(subpackages.begin(), subpackages.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (const auto& [depth, a] : subpackages)
        out->elems.push_back(chain_entry(std::vector<std::string>(pkg.begin(), pkg.begin() + static_cast<long>(depth)), a, loc));
    return out;
}

// Each call `rego.metadata.X(out)` becomes `out = var` (or `var` without an output).
void replace_calls(lang::Body& body, std::string_view name, const std::string& var) {
    walk_exprs(body, [&](lang::Expr& e) {
        if (!is_call_of(e, name)) return false;
        const auto& elems = e.term->elems;
        lang::Location loc = e.loc;
        lang::Expr next = elems.size() > 1 ? make_equality(elems[1], lang::make_var(var, loc), loc, true)
                                           : make_term_expr(lang::make_var(var, loc), loc);
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
                    prelude.push_back(make_equality(lang::make_var(chain_var, loc), metadata_chain(ctx, *m, *r, annotated, loc), loc, true));
                }
                if (rule_call) {
                    rule_var = ctx.gen.next();
                    lang::Location loc = rule_call->loc;
                    auto blocks = rule_scope(*m, annotated);
                    TermPtr value = blocks.empty() ? lang::make_term(TermKind::Object, loc) : annotation_term(*blocks.front(), loc);
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
