#pragma once
// The rule tree: every rule at the ground prefix of its ref below `data`
// (OPA's RuleTree), and the module tree of packages (OPA's ModuleTree). The
// compiler's checks and the planner find rules through them.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lang/ast.hpp"

namespace gavel::compiler {

// A key of the tree: a scalar path part (`"a"`, `1`, `true`) or the root
// var `data`. Encoded so that the tree's order is OPA's value order
// (null < boolean < number < string < var).
std::string tree_key(const lang::Term& part);
// The term a key stands for (a string key's string, a var key's name ...).
std::string tree_key_text(const std::string& key);
inline std::string string_key(std::string_view s) { return '3' + std::string(s); }

struct RuleTreeNode {
    std::string key;  // tree_key of this node's part ("" at the root)
    std::map<std::string, std::unique_ptr<RuleTreeNode>> children;
    std::vector<lang::Rule*> rules;        // defined exactly here, in module order
    bool hidden = false;                   // data.system: not part of a `data` walk
    const lang::Module* module = nullptr;  // the module of the first rule (for locations)

    const RuleTreeNode* child(const std::string& key) const {
        auto it = children.find(key);
        return it == children.end() ? nullptr : it->second.get();
    }
    RuleTreeNode* child(const std::string& key) {
        auto it = children.find(key);
        return it == children.end() ? nullptr : it->second.get();
    }
};

struct ModuleTreeNode {
    std::map<std::string, std::unique_ptr<ModuleTreeNode>> children;
    std::vector<lang::Module*> modules;
};

// The parts of a ref's ground prefix as tree keys ("data" first); empty
// when a part cannot be a key (a ref or call part).
std::vector<std::string> ground_keys(const lang::Term& ref);

// The ref of a rule as OPA keeps it: `data.pkg` followed by the head ref.
lang::TermPtr rule_full_ref(const lang::Module& module, const lang::Rule& rule);

// Builds both trees from the modules (rules keyed by data.pkg + the ground prefix of their head ref).
struct Trees {
    std::unique_ptr<RuleTreeNode> rules;
    std::unique_ptr<ModuleTreeNode> modules;
};
Trees build_trees(const std::vector<lang::Module*>& modules);

// The node at exactly `keys` below `root`, or null.
const RuleTreeNode* find_node(const RuleTreeNode& root, const std::vector<std::string>& keys);
// Every rule in the subtree of `node` (itself included), depth first.
void collect_rules(const RuleTreeNode& node, bool include_hidden, std::vector<lang::Rule*>& out);

}  // namespace gavel::compiler
