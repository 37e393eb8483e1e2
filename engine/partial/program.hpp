#pragma once
// The compiled modules as partial evaluation reads them, built once per
// compiled program: rules in OPA's shape (head reference, key, value, else
// chain), the rule tree, and a rule index per rule set (rule_index.hpp).
// The compiler's output is copied so that bare `data` and `input` are
// one-part refs, as OPA's parser makes them.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compiler.hpp"
#include "engine/partial/terms.hpp"
#include "runtime/builtin.hpp"

namespace gavel::partial {

struct Module;
class RuleIndex;

// A rule clause as OPA's ast.Rule.
struct Rule {
    const Module* module = nullptr;
    std::string name;                // Head.Name: empty for rules named by a longer ref
    std::vector<TermPtr> reference;  // Head.Reference: the rule's var, then parts
    std::vector<TermPtr> args;       // functions
    bool function = false;
    TermPtr key;    // multi-value (partial set) rules: the element
    TermPtr value;  // null for multi-value rules
    bool is_default = false;
    Body body;
    lang::Location loc;
    const Rule* else_rule = nullptr;
    TermPtr full_ref;  // Rule.Ref(): data, the package's parts, then the head ref (its var as a string)

    bool multi_value() const { return !value; }
};

struct Module {
    std::vector<TermPtr> package;                // data, then string parts
    std::vector<std::unique_ptr<Rule>> clauses;  // every clause, else clauses too
    std::vector<const Rule*> rules;              // the first clause of each rule, in module order
};

// OPA's TreeNode: rules by the ground prefix of their ref below `data`.
struct TreeNode {
    TermPtr key;
    std::vector<std::unique_ptr<TreeNode>> children;  // in OPA's order of keys
    std::vector<const Rule*> values;
    bool hide = false;
    const TreeNode* child(const Term& key) const;
};

// What a rule index lookup yields (OPA's IndexResult).
struct IndexResult {
    std::vector<const Rule*> rules;
    std::map<const Rule*, std::vector<const Rule*>> else_rules;
    const Rule* default_rule = nullptr;
    bool multi_value = false;
    bool only_ground_refs = true;
    bool empty() const { return rules.empty() && !default_rule; }
};

class Program {
public:
    Program(std::shared_ptr<const compiler::CompiledModules> compiled, const runtime::BuiltinRegistry* builtins,
            const std::map<std::string, runtime::Builtin>* custom);
    ~Program();

    const TreeNode& root() const { return *root_; }
    // The index of the rules at `path` (a ground ref), or null.
    const RuleIndex* index(const Term& path) const;
    // OPA's GetRulesDynamicWithOpts: every rule `ref` may refer to.
    std::vector<const Rule*> rules_dynamic(const Term& ref, bool include_hidden) const;
    // The rules at exactly `ref` (OPA's GetRulesExact, for a ground ref).
    std::vector<const Rule*> rules_exact(const Term& ref) const;
    // Whether the ground prefix of `ref` names rules or leads to them (OPA's isVirtual).
    bool is_virtual(const Term& ref) const;
    // A ref to a function: a builtin or rules with arguments (OPA's isFunction of the type env).
    bool is_function(const Term& ref) const;
    // OPA's GetArity: a builtin's operand count, a function's argument count, or -1.
    int arity(const Term& op) const;

    const lang::BuiltinDecl* builtin_decl(std::string_view name) const;
    const runtime::Builtin* builtin(std::string_view name) const;

    const compiler::CompiledModules& compiled() const { return *compiled_; }

private:
    void add_module(const lang::Module& m);
    void build_tree();
    void build_indices(const TreeNode& node);

    std::shared_ptr<const compiler::CompiledModules> compiled_;
    const runtime::BuiltinRegistry* builtins_;
    const std::map<std::string, runtime::Builtin>* custom_;
    std::vector<std::unique_ptr<Module>> modules_;
    std::unique_ptr<TreeNode> root_;
    std::map<std::string, std::unique_ptr<RuleIndex>> indices_;  // by ref_text of the path
};

// A term of the compiled modules as OPA's parser would have made it: bare
// `data` and `input` as refs (recursively, comprehension bodies included).
TermPtr normalize_term(const TermPtr& t);
lang::Body normalize_body(const lang::Body& b);

}  // namespace gavel::partial
