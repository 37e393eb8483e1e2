#pragma once
// What the stages of one compilation share: the modules being rewritten
// (or the query), the rule tree, the variable generator and the renames it
// made, the builtins in scope, and the errors so far (with OPA's limit).

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "compiler/ast/var_visitor.hpp"
#include "compiler/compiler.hpp"
#include "compiler/rule_tree.hpp"
#include "compiler/var_generator.hpp"
#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::compiler {

namespace types {
struct TypeEnv;
class Type;
}  // namespace types
class AnnotationSet;

class CompileContext {
public:
    explicit CompileContext(const CompileOptions& options);
    CompileContext(const CompileContext&) = delete;
    CompileContext& operator=(const CompileContext&) = delete;

    const CompileOptions& options;
    std::vector<lang::Module*> modules;                          // sorted by file name
    std::map<const lang::Rule*, const lang::Module*> module_of;  // every clause of every rule

    // Set by the set_rule_tree stage (for a query: the compiled modules' trees).
    const RuleTreeNode* rule_tree = nullptr;
    const ModuleTreeNode* module_tree = nullptr;
    Trees owned_trees;

    VarGenerator gen;
    std::map<std::string, std::string> rewritten_vars;  // generated -> as written
    // A query's renames are looked up in these too (the modules').
    const std::map<std::string, std::string>* module_rewritten_vars = nullptr;
    const QueryContext* query = nullptr;  // set when compiling a query
    // What each rule clause refers to (OPA's Graph): set by check_recursion, which
    // checks it for cycles; check_types takes rules in its order.
    std::map<const lang::Rule*, std::vector<const lang::Rule*>> rule_graph;
    // Rules' and builtins' types, set by check_types (for a query: the compiled modules').
    std::shared_ptr<types::TypeEnv> type_env;
    // The operators of the call expressions check_types reached (OPA's Required.Builtins).
    std::set<std::string> called_by_checked_exprs;
    // The METADATA blocks by scope, set by set_annotation_set.
    std::shared_ptr<const AnnotationSet> annotation_set;
    // The type of `input` from the schema given with -s (CompileOptions::schemas), or null.
    std::shared_ptr<const types::Type> input_type;

    lang::Diagnostics diagnostics;

    // Records an error; false once the error limit is reached (then stop).
    bool error(const lang::Location& loc, std::string_view code, std::string message);
    bool error(lang::Diagnostic d);
    bool failed() const { return !diagnostics.empty(); }

    const lang::BuiltinDecl* builtin(std::string_view name) const;
    // OPA's GetArity: a builtin's operand count, a function's argument count, or -1.
    int arity(const lang::Term& op) const;
    const ArityFn& arity_fn() const { return arity_fn_; }

    // The rules at exactly the path of a ground ref (OPA's GetRulesExact).
    const std::vector<lang::Rule*>* rules_exact(const lang::Term& ref) const;
    // The rules a ref may refer to (OPA's GetRulesDynamic): an over-approximation.
    std::vector<lang::Rule*> rules_dynamic(const lang::Term& ref, bool include_hidden) const;

    // The name a variable was written with (a generated one's original, else itself).
    std::string original_name(const std::string& v) const;

private:
    std::size_t error_count_ = 0;
    bool limit_reached_ = false;
    ArityFn arity_fn_;
};

}  // namespace gavel::compiler
