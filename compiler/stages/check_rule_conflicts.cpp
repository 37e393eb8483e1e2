// Stage: rules that cannot live together (OPA's checkRuleConflicts):
//   * a single-value rule with rules inside its extent (data.p.q := 1 and data.p.q.r := 2);
//   * a ref rule with a variable and functions inside its extent;
//   * one path defined with different kinds, arities, or complete and partial rules;
//   * more than one default rule;
//   * a rule at the path of another module's package.

#include <fmt/format.h>

#include <set>

#include "lang/copy.hpp"
#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "lang/walk.hpp"
#include "compiler/stages/stages.hpp"

namespace gavel::compiler {

using lang::Term;
using lang::TermKind;

namespace {

bool multi_value(const lang::Rule& r) { return !r.head.value; }

std::string location_text(const lang::Location& loc) {
    if (!loc.file().empty()) return fmt::format("{}:{}", loc.file(), loc.line);
    if (loc.length) return std::string(loc.text());
    return fmt::format("{}:{}", loc.line, loc.col);
}

// A ref with its variables shown as written (on a copy: the ref shares the rule's terms).
std::string display_ref(const CompileContext& ctx, const lang::TermPtr& shared) {
    lang::TermPtr ref = copy_term(shared);
    walk_terms(*ref, [&](Term& t) {
        if (t.kind == TermKind::Var) t.text = ctx.original_name(t.text);
        return false;
    });
    return to_string(*ref);
}

// The refs of the rules below `node` (not at it), each prefix once, sorted (OPA's flattenChildren).
std::string flattened_children(const CompileContext& ctx, const RuleTreeNode& node, bool functions_only) {
    std::vector<std::string> refs;
    for (const auto& [key, child] : node.children) {
        std::vector<lang::Rule*> rules;
        collect_rules(*child, true, rules);
        for (const lang::Rule* r : rules) {
            if (functions_only && !r->head.has_args) continue;
            refs.push_back(to_string(*rule_full_ref(*ctx.module_of.at(r), *r)));
        }
    }
    std::sort(refs.begin(), refs.end());
    // Keep a ref only when no shorter one kept is its prefix.
    std::vector<std::string> kept;
    for (const auto& r : refs) {
        bool covered = false;
        for (const auto& k : kept)
            covered |=
                r.size() > k.size() && r.compare(0, k.size(), k) == 0 && (r[k.size()] == '.' || r[k.size()] == '[');
        if (!covered && (kept.empty() || kept.back() != r)) kept.push_back(r);
    }
    std::string out = "[";
    for (std::size_t i = 0; i < kept.size(); ++i) out += (i ? " " : "") + kept[i];
    return out + "]";
}

// false when the error limit stopped it.
bool check_node(CompileContext& ctx, const RuleTreeNode& node) {
    if (!node.rules.empty()) {
        const auto& rules = node.rules;
        std::set<bool> kinds;
        std::set<std::size_t> arities;
        std::size_t complete = 0, partial = 0;
        std::vector<const lang::Rule*> defaults;
        std::string conflicts;
        std::string name;
        for (const lang::Rule* r : rules) {
            auto ref = rule_full_ref(*ctx.module_of.at(r), *r);
            name = display_ref(ctx, ref);
            kinds.insert(multi_value(*r));
            arities.insert(r->head.args.size());
            if (r->is_default) defaults.push_back(r);
            bool ground = ground_prefix_length(*ref) == ref->elems.size();
            if (ground && !node.children.empty()) conflicts = flattened_children(ctx, node, false);
            if (!multi_value(*r) && ground) ++complete;
            else ++partial;
        }
        if (conflicts.empty() && !node.children.empty()) {
            for (const lang::Rule* r : rules) {
                auto ref = rule_full_ref(*ctx.module_of.at(r), *r);
                if (ground_prefix_length(*ref) != ref->elems.size()) {
                    std::string functions = flattened_children(ctx, node, true);
                    if (functions != "[]") conflicts = functions;
                    break;
                }
            }
        }
        const lang::Location& at = rules.front()->loc;
        if (!conflicts.empty()) {
            if (!ctx.error(at, lang::codes::type_error, fmt::format("rule {} conflicts with {}", name, conflicts)))
                return false;
        } else if (kinds.size() > 1 || arities.size() > 1 || (complete >= 1 && partial >= 1)) {
            if (!ctx.error(at, lang::codes::type_error, fmt::format("conflicting rules {} found", name))) return false;
        } else if (defaults.size() > 1) {
            std::string message = "multiple default rules " + name + " found at " + location_text(defaults[0]->loc);
            for (std::size_t i = 1; i < defaults.size(); ++i) message += ", " + location_text(defaults[i]->loc);
            if (!ctx.error(ctx.module_of.at(defaults[0])->package.loc, lang::codes::type_error, message)) return false;
        }
    }
    for (const auto& [key, child] : node.children)
        if (!check_node(ctx, *child)) return false;
    return true;
}

std::string package_text(const lang::Module& m) { return "package " + to_string(*m.package.path); }

// Rules at a path where base data is (OPA's CheckPathConflicts): only string keys can meet data.
bool check_data_conflicts(CompileContext& ctx, const RuleTreeNode& node, std::vector<std::string>& path) {
    if (node.key.empty() || node.key[0] != '3') return true;
    path.push_back(tree_key_text(node.key));
    bool ok = true;
    if (!node.rules.empty() && ctx.options.path_exists(path)) {
        std::string joined;
        for (const auto& p : path) joined += (joined.empty() ? "" : "/") + p;
        ok = ctx.error(node.rules.front()->loc, lang::codes::compile_error,
                       fmt::format("conflicting rule for data path {} found", joined));
    } else {
        for (const auto& [key, child] : node.children)
            if (!(ok = check_data_conflicts(ctx, *child, path))) break;
    }
    path.pop_back();
    return ok;
}

}  // namespace

void check_rule_conflicts(CompileContext& ctx) {
    if (ctx.rule_tree && !check_node(ctx, *ctx.rule_tree)) return;
    if (ctx.options.path_exists && ctx.rule_tree)
        if (const RuleTreeNode* data = ctx.rule_tree->child("4data")) {
            std::vector<std::string> path;
            for (const auto& [key, child] : data->children)
                if (!check_data_conflicts(ctx, *child, path)) return;
        }
    // A rule whose ground path is another module's package.
    for (const lang::Module* m : ctx.modules) {
        const ModuleTreeNode* pkg = ctx.module_tree;
        const auto& parts = m->package.path->kind == TermKind::Ref ? m->package.path->elems
                                                                   : std::vector<lang::TermPtr>{m->package.path};
        for (const auto& p : parts)
            pkg = pkg ? (pkg->children.count(tree_key(*p)) ? pkg->children.at(tree_key(*p)).get() : nullptr) : nullptr;
        if (!pkg) continue;
        for (const auto& rule : m->rules) {
            const auto& ref = rule.head.ref->elems;
            if (ground_prefix_length(*rule.head.ref) < ref.size()) continue;
            const ModuleTreeNode* node = pkg;
            for (std::size_t i = 0; node && i < ref.size(); ++i) {
                std::string key = i == 0 ? string_key(ref[0]->text) : tree_key(*ref[i]);
                auto it = node->children.find(key);
                node = it == node->children.end() ? nullptr : it->second.get();
            }
            if (!node) continue;
            for (const lang::Module* other : node->modules) {
                if (other == m) continue;
                if (!ctx.error(m->package.loc, lang::codes::type_error,
                               fmt::format("{} conflicts with rule {} defined at {}", package_text(*other),
                                           to_string(*rule.head.ref), location_text(rule.loc))))
                    return;
            }
        }
    }
}

}  // namespace gavel::compiler
