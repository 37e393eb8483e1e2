#include "compiler/rule_tree.hpp"

#include "compiler/ast/terms.hpp"

namespace gavel::compiler {

using lang::Term;
using lang::TermKind;

std::string tree_key(const Term& part) {
    switch (part.kind) {
        case TermKind::Null: return "0";
        case TermKind::Boolean: return part.boolean ? "1t" : "1f";
        case TermKind::Number: return "2" + part.text;
        case TermKind::String: return "3" + part.text;
        case TermKind::Var: return "4" + part.text;
        default: return {};
    }
}

std::string tree_key_text(const std::string& key) { return key.empty() ? key : key.substr(1); }

std::vector<std::string> ground_keys(const Term& ref) {
    std::vector<std::string> keys;
    if (ref.kind == TermKind::Var) return {tree_key(ref)};
    if (ref.kind != TermKind::Ref) return keys;
    std::size_t n = ground_prefix_length(ref);
    for (std::size_t i = 0; i < n; ++i) {
        std::string k = tree_key(*ref.elems[i]);
        if (k.empty()) break;
        keys.push_back(std::move(k));
    }
    return keys;
}

namespace {

std::vector<lang::TermPtr> package_parts(const lang::Module& m) {
    const auto& p = m.package.path;
    if (p->kind == TermKind::Ref) return p->elems;
    return {p};
}

}  // namespace

lang::TermPtr rule_full_ref(const lang::Module& module, const lang::Rule& rule) {
    const lang::Location& loc = rule.head.ref->loc;
    std::vector<lang::TermPtr> parts{lang::make_var("data", loc)};
    for (const auto& p : package_parts(module))
        parts.push_back(p->kind == TermKind::Var ? lang::make_string(p->text, p->loc) : p);
    const auto& head = rule.head.ref->elems;
    for (std::size_t i = 0; i < head.size(); ++i)
        parts.push_back(i == 0 && head[0]->kind == TermKind::Var ? lang::make_string(head[0]->text, head[0]->loc)
                                                                 : head[i]);
    return lang::make_ref(std::move(parts), loc);
}

Trees build_trees(const std::vector<lang::Module*>& modules) {
    Trees t;
    t.rules = std::make_unique<RuleTreeNode>();
    t.modules = std::make_unique<ModuleTreeNode>();
    auto descend = [](RuleTreeNode* node, const std::string& key) {
        auto& child = node->children[key];
        if (!child) {
            child = std::make_unique<RuleTreeNode>();
            child->key = key;
        }
        return child.get();
    };
    for (lang::Module* m : modules) {
        ModuleTreeNode* mnode = t.modules.get();
        for (const auto& p : package_parts(*m)) {
            auto& child = mnode->children[tree_key(*p)];
            if (!child) child = std::make_unique<ModuleTreeNode>();
            mnode = child.get();
        }
        mnode->modules.push_back(m);
        if (m->rules.empty()) {
            RuleTreeNode* node = descend(t.rules.get(), "4data");
            for (const auto& p : package_parts(*m)) node = descend(node, string_key(p->text));
            continue;
        }
        for (auto& rule : m->rules) {
            auto full = rule_full_ref(*m, rule);
            RuleTreeNode* node = t.rules.get();
            for (const auto& key : ground_keys(*full)) node = descend(node, key);
            if (node->rules.empty()) node->module = m;
            node->rules.push_back(&rule);
        }
    }
    if (auto* data = t.rules->child("4data"))
        if (auto* system = data->child(string_key("system"))) system->hidden = true;
    return t;
}

const RuleTreeNode* find_node(const RuleTreeNode& root, const std::vector<std::string>& keys) {
    const RuleTreeNode* node = &root;
    for (const auto& k : keys) {
        node = node->child(k);
        if (!node) return nullptr;
    }
    return node;
}

void collect_rules(const RuleTreeNode& node, bool include_hidden, std::vector<lang::Rule*>& out) {
    std::vector<const RuleTreeNode*> stack{&node};
    while (!stack.empty()) {
        const RuleTreeNode* n = stack.back();
        stack.pop_back();
        out.insert(out.end(), n->rules.begin(), n->rules.end());
        for (auto it = n->children.rbegin(); it != n->children.rend(); ++it)
            if (include_hidden || !it->second->hidden) stack.push_back(it->second.get());
    }
}

}  // namespace gavel::compiler
