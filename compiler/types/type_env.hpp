#pragma once
// The type environment (OPA's TypeEnv): a tree of types by path — rules'
// types below `data`, builtins' function types below their names, and the
// types of a body's variables — and a link to the enclosing environment,
// which is where a name not found here is looked up next. Checking a body
// wraps its enclosing environment and writes only to the new one.

#include <map>
#include <memory>
#include <string>
#include <unordered_map>
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
    // object types along the way (OPA's Insert). True when types below the
    // path changed too (not only those on it).
    bool insert(const std::vector<std::string>& path, const TypePtr& t);
};

struct TypeEnv {
    TypeTree tree;
    std::shared_ptr<TypeEnv> next;  // the enclosing environment
};
using EnvPtr = std::shared_ptr<TypeEnv>;

EnvPtr wrap(const EnvPtr& env);

// What one checker remembers of the types it computed: the type of a subtree
// (rules' documents are objects of all the rules below them) and the key and
// value types of a type, which refs into large documents ask for again and
// again. An extent is valid until its subtree changes.
class Memo {
public:
    TypePtr extent(const TypeTree& node);
    TypePtr keys(const TypePtr& t);
    TypePtr values(const TypePtr& t);
    // The tree changed at `path` below `root` (put, insert): the extents of the nodes on the way are stale.
    void forget_path(const TypeTree& root, const std::vector<std::string>& path);
    void forget_extents() { extents_.clear(); }

private:
    struct Parts {
        TypePtr type;  // keeps the key alive
        std::optional<TypePtr> keys, values;
    };
    TypePtr extent_at(const TypeTree& node, uint32_t depth);
    std::unordered_map<const TypeTree*, TypePtr> extents_;
    std::unordered_map<const Type*, Parts> parts_;
};

// A root document name (`data`, `input`): refs into them are never unknown.
bool is_root_document(const lang::Term& t);

// The type of what `ref` refers to (OPA's GetByRef); `ref` is a Ref term, or a
// var standing for a one-part ref. Null when nothing is known.
TypePtr type_of_ref(const TypeEnv& env, const lang::Term& ref, Memo& memo);
// The type of a variable (OPA's GetByValue of a Var): the nearest
// environment that has a node for it decides, even when its type is null.
TypePtr type_of_var(const TypeEnv& env, const std::string& key);
// OPA's selectRef: the type `parts[from..]` select from `t`.
TypePtr select_ref(TypePtr t, const std::vector<lang::TermPtr>& parts, std::size_t from, Memo& memo);
// OPA's selectConstant: the type a scalar part selects from `t`, null when it selects nothing.
TypePtr select_constant(const TypePtr& t, const lang::Term& part);
// The keys of a node's children as Rego values, sorted (OPA's getOneOfForNode).
std::vector<std::string> one_of_node(const TypeTree& node);
// The static keys of the objects in `t` as Rego values, sorted (OPA's getOneOfForType).
std::vector<std::string> one_of_type(const TypePtr& t);

// A scalar term as a key, if it is one.
std::optional<Key> key_of(const lang::Term& t);

// OPA's mergeTypes: how the types of two rules at one path combine. OPA
// merges an object into a union's object member in place, so every holder of
// that member sees the merged object; `replaced` gets each such (member, merged
// member) for the caller to pass on to the holders it knows.
using Replacements = std::vector<std::pair<const Type*, TypePtr>>;
TypePtr merge_types(const TypePtr& a, const TypePtr& b, Replacements* replaced = nullptr);

}  // namespace gavel::compiler::types
