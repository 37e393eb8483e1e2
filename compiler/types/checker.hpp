#pragma once
// The type checker (OPA's typeChecker, check.go). It walks a body expression
// by expression: comprehensions inside are checked first, then every ref is
// checked against what is known of the document it reaches into (typing the
// variables it binds), then the expression itself — a builtin or function
// call against the callee's signature, `x = y` by unifying both sides. Types
// of variables live in the body's environment; rules' types in the global one.
//
// It runs on the compiler's output: refs resolved, locals renamed, calls
// flattened into one call per expression, bodies ordered so that a variable
// is bound before it is used.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "compiler/types/schema_override.hpp"
#include "compiler/types/type_env.hpp"
#include "compiler/types/type_error.hpp"
#include "lang/ast.hpp"

namespace gavel::compiler::types {

class Checker {
public:
    // `original_name` gives a generated variable's name as written, for refs in messages.
    explicit Checker(std::function<std::string(const std::string&)> original_name);

    // Checks a body in an environment wrapping `env` (OPA's CheckBody): the
    // new environment (the body's variables' types) and the errors.
    std::pair<EnvPtr, TypeErrors> check_body(const EnvPtr& env, const lang::Body& body);

    // Checks one rule clause and adds its type at its path (`path`: data, the
    // package, the head's ref) to `global` (OPA's checkRule); errors go to `out`.
    // `schemas` type documents for this clause alone (its METADATA `schemas:`),
    // in order: a later one for the same document wins.
    void check_rule(const EnvPtr& global, const lang::Rule& rule, const lang::Term& path, TypeErrors& out,
                    const std::vector<DocumentSchema>& schemas = {});

    // The type of a term in an environment (OPA's GetByValue).
    TypePtr type_of(const EnvPtr& env, const lang::Term& t);

    // The operators of the call expressions checked so far (OPA's Required.Builtins, which
    // checkExpr fills): not those in `every` bodies, which the checker never reaches.
    const std::set<std::string>& called() const { return called_; }

private:
    std::optional<TypeError> check_expr(const EnvPtr& env, const lang::Expr& e);
    std::optional<TypeError> check_with(const EnvPtr& env, const lang::Expr& e);
    std::optional<TypeError> check_call(const EnvPtr& env, const lang::Expr& e);
    std::optional<TypeError> check_equality(const EnvPtr& env, const lang::Expr& e);
    TypeErrors check_closures(const EnvPtr& env, const lang::Expr& e);

    // The ref checker (OPA's refChecker).
    void check_refs_in_expr(const EnvPtr& env, const lang::Expr& e, TypeErrors& out);
    void check_refs_in_term(const EnvPtr& env, const lang::Term& t, TypeErrors& out);
    std::optional<TypeError> check_ref(const EnvPtr& env, const lang::Term& ref);
    std::optional<TypeError> check_ref_from(const EnvPtr& env, const TypeEnv* curr, const TypeTree* node,
                                            const lang::Term& ref, std::size_t idx,
                                            std::vector<std::pair<const TypeTree*, std::size_t>>* spawned);
    std::optional<TypeError> check_ref_leaf(const EnvPtr& env, TypePtr t, const lang::Term& ref, std::size_t idx);

    // Term-level unification (OPA's unify1 and unify2): types variables, and
    // says whether the term can have the type / the two terms can be equal.
    bool unify1(const EnvPtr& env, const lang::Term& t, const TypePtr& tpe, bool join);
    bool unify1_any(const EnvPtr& env, const lang::Term& t, const TypePtr& tpe);
    bool unify2(const EnvPtr& env, const lang::Term& a, const TypePtr& type_a, const lang::Term& b,
                const TypePtr& type_b);
    bool unify2_array(const EnvPtr& env, const lang::Term& a, const lang::Term& b);
    bool unify2_object(const EnvPtr& env, const lang::Term& a, const lang::Term& b);

    std::vector<TypePtr> operand_types(const EnvPtr& env, const lang::Term& call);
    lang::TermPtr shown_ref(const lang::Term& ref) const;  // generated variables renamed as written

    // OPA's errors about a ref rename its variables as written in the AST itself (the
    // checker's varRewriter transforms the ref in place), so whatever checks that ref
    // again (the type of a comprehension around it, re-checked) sees variables nothing
    // binds: the comprehension then has a type, not none. These are those refs.
    void rename_as_shown(const lang::Term& ref);
    const lang::Term& as_checked(const lang::Term& ref) const;

    std::function<std::string(const std::string&)> original_name_;
    Memo memo_;
    std::set<std::string> called_;
    std::map<const lang::Term*, lang::TermPtr> renamed_;
    std::size_t quiet_ = 0;  // > 0 while typing a comprehension (OPA's GetByValue: no renaming there)
    // Nested bodies re-check inner comprehensions (as OPA does), which grows
    // with every level of nesting; past this many body checks below one rule
    // or query, inner bodies are taken as unknown instead.
    std::size_t bodies_left_ = 0;
    std::size_t depth_ = 0;  // bodies being checked, one inside the other
    static constexpr std::size_t kBodyBudget = 100000;
};

}  // namespace gavel::compiler::types
