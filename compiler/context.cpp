#include "compiler/context.hpp"

#include <set>

#include "compiler/ast/terms.hpp"

namespace gavel::compiler {

using lang::Term;
using lang::TermKind;

CompileContext::CompileContext(const CompileOptions& o) : options(o) {
    arity_fn_ = [this](const Term& op) { return arity(op); };
}

bool CompileContext::error(lang::Diagnostic d) {
    if (limit_reached_) return false;
    diagnostics.add(std::move(d));
    ++error_count_;
    if (options.max_errors > 0 && error_count_ >= options.max_errors) {
        limit_reached_ = true;
        diagnostics.add(lang::Diagnostic{
            std::string(lang::codes::compile_error), "error limit reached", "", 0, 0, "", nullptr, {}});
        return false;
    }
    return true;
}

bool CompileContext::error(const lang::Location& loc, std::string_view code, std::string message) {
    return error(lang::Diagnostic::at(loc, code, std::move(message)));
}

const lang::BuiltinDecl* CompileContext::builtin(std::string_view name) const { return find_builtin(options, name); }

const std::vector<lang::Rule*>* CompileContext::rules_exact(const Term& ref) const {
    if (!rule_tree) return nullptr;
    const RuleTreeNode* node = rule_tree;
    const auto& parts = ref.kind == TermKind::Ref ? ref.elems : std::vector<lang::TermPtr>{};
    if (parts.empty()) return nullptr;
    for (const auto& p : parts) {
        std::string key = tree_key(*p);
        if (key.empty() || !(node = node->child(key))) return nullptr;
    }
    return &node->rules;
}

int CompileContext::arity(const Term& op) const {
    std::string name = dotted_name(op);
    if (!name.empty())
        if (const lang::BuiltinDecl* b = builtin(name)) return static_cast<int>(b->arity);
    const auto* rules = rules_exact(op);
    if (!rules || rules->empty()) return -1;
    return static_cast<int>(rules->front()->head.args.size());
}

std::vector<lang::Rule*> CompileContext::rules_dynamic(const Term& ref, bool include_hidden) const {
    std::vector<lang::Rule*> out;
    if (!rule_tree || ref.kind != TermKind::Ref) return out;
    std::set<lang::Rule*> seen;
    auto insert = [&](const std::vector<lang::Rule*>& rules) {
        for (auto* r : rules)
            if (seen.insert(r).second) out.push_back(r);
    };
    // Depth-first over the ref's parts; a non-constant part tries every child.
    struct Item {
        const RuleTreeNode* node;
        std::size_t i;
    };
    std::vector<Item> stack{{rule_tree, 0}};
    while (!stack.empty()) {
        auto [node, i] = stack.back();
        stack.pop_back();
        if (i >= ref.elems.size()) {
            std::vector<lang::Rule*> below;
            collect_rules(*node, include_hidden, below);
            insert(below);
            continue;
        }
        const Term& part = *ref.elems[i];
        if (i == 0 || is_constant(part)) {
            std::string key = tree_key(part);
            const RuleTreeNode* child = key.empty() ? nullptr : node->child(key);
            if (!child) continue;
            insert(child->rules);
            stack.push_back({child, i + 1});
            continue;
        }
        for (auto it = node->children.rbegin(); it != node->children.rend(); ++it) {
            if (it->second->hidden && !include_hidden) continue;
            insert(it->second->rules);
            stack.push_back({it->second.get(), i + 1});
        }
    }
    return out;
}

std::string CompileContext::original_name(const std::string& v) const {
    if (auto it = rewritten_vars.find(v); it != rewritten_vars.end()) return it->second;
    if (module_rewritten_vars)
        if (auto it = module_rewritten_vars->find(v); it != module_rewritten_vars->end()) return it->second;
    return v;
}

}  // namespace gavel::compiler
