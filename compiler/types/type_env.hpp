#pragma once
// The type environment (OPA's TypeEnv): a tree of types by path — rules'
// types below `data`, builtins' function types below their names, and the
// types of a body's variables — and a link to the enclosing environment,
// which is where a name not found here is looked up next. Checking a body
// wraps its enclosing environment and writes only to the new one.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/types/type.hpp"
#include "lang/ast.hpp"

namespace gavel::compiler::types {

// The key of a tree node: a scalar or a variable, encoded as the rule tree
// encodes them (compiler/rule_tree.hpp). A composite part of a ref gets a key
// that no node has.
std::string node_key(const lang::Term& part);

// OPA's typeTreeNode.
class TypeTree {
public:
    TypePtr value;  // null: no type is known here (an inner node, or a var typed with nothing)
    std::map<std::string, std::unique_ptr<TypeTree>> children;

    bool leaf() const { return value != nullptr; }
    const TypeTree* child(const std::string& key) const;
    TypeTree* child(const std::string& key);
    // Sets the type of the direct child `key` (OPA's PutOne).
    void put_one(const std::string& key, TypePtr t);
    // Sets the type at `path`, creating nodes on the way (OPA's Put).
    void put(const std::vector<std::string>& path, TypePtr t);
    // Adds a rule's type at `path`: merged with what is there, and into the
    // object types along the way (OPA's Insert).
    void insert(const std::vector<std::string>& path, const TypePtr& t);
};

struct TypeEnv {
    TypeTree tree;
    std::shared_ptr<TypeEnv> next;  // the enclosing environment
};
using EnvPtr = std::shared_ptr<TypeEnv>;

EnvPtr wrap(const EnvPtr& env);

// A root document name (`data`, `input`): refs into them are never unknown.
bool is_root_document(const lang::Term& t);

// The type of what `ref` refers to (OPA's GetByRef); `ref` is a Ref term, or a
// var standing for a one-part ref. Null when nothing is known.
TypePtr type_of_ref(const TypeEnv& env, const lang::Term& ref);
// The type of a variable (OPA's GetByValue of a Var): the nearest
// environment that has a node for it decides, even when its type is null.
TypePtr type_of_var(const TypeEnv& env, const std::string& key);
// The type of everything below a node: its type, or an object of its
// children's types (OPA's getRefRecExtent).
TypePtr extent(const TypeTree& node);
// OPA's selectRef: the type `parts[from..]` select from `t`.
TypePtr select_ref(TypePtr t, const std::vector<lang::TermPtr>& parts, std::size_t from);
// OPA's selectConstant: the type a scalar part selects from `t`, null when it selects nothing.
TypePtr select_constant(const TypePtr& t, const lang::Term& part);
// The keys of a node's children as Rego values, sorted (OPA's getOneOfForNode).
std::vector<std::string> one_of_node(const TypeTree& node);
// The static keys of the objects in `t` as Rego values, sorted (OPA's getOneOfForType).
std::vector<std::string> one_of_type(const TypePtr& t);

// A scalar term as a key, if it is one.
std::optional<Key> key_of(const lang::Term& t);

// OPA's mergeTypes: how the types of two rules at one path combine.
TypePtr merge_types(const TypePtr& a, const TypePtr& b);

}  // namespace gavel::compiler::types
