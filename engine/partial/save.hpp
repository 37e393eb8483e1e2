#pragma once
// What partial evaluation keeps instead of evaluating, as OPA's topdown
// keeps it (v1/topdown/save.go):
//
//  - the save set: the terms that are unknown (the `unknowns` refs, and the
//    variables that saved expressions bind), each with the bindings its
//    variables belong to;
//  - the save stack: the expressions saved so far on the current path of
//    the evaluation, one query per level (a level is pushed while a rule is
//    partially evaluated into a support rule);
//  - the support modules: rules that could not be inlined, by package;
//  - inlining control: refs (and one variable) whose evaluation must not be
//    inlined, and whether inlining is shallow.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ast/var_set.hpp"
#include "engine/partial/bindings.hpp"
#include "engine/partial/support.hpp"

namespace gavel::partial {

class SaveSet {
public:
    // Unknown terms: refs (rooted at a document) or variables of `b`.
    void push(const std::vector<TermPtr>& terms, Bindings* b);
    void pop() { elems_.pop_back(); }

    // A var of `b` in the set, or a ref that is a prefix of (or prefixed by)
    // a ref in the set, or whose head var is in the set.
    bool contains(const Term& t, Bindings* b) const;
    // `t` or anything inside it (following variables through their bindings).
    bool contains_recursive(const TermPtr& t, Bindings* b) const;
    // The variables of the set as `caller` names them (OPA's Vars).
    compiler::VarSet vars(Bindings* caller) const;

private:
    struct Elem {
        std::vector<TermPtr> refs;
        std::vector<TermPtr> vars;
        Bindings* b;
        bool contains(const Term& t, Bindings* b) const;
        bool contains_var(const Term& t, Bindings* b) const;
    };
    std::vector<Elem> elems_;
};

struct SaveElem {
    lang::Expr expr;
    Bindings* b1 = nullptr;
    Bindings* b2 = nullptr;
    // The expression with its operands plugged (b1 for the left or only
    // operands, b2 for the right of an equality), renamed for `caller`.
    lang::Expr plug(Bindings* caller) const;
};
using SaveQuery = std::vector<SaveElem>;

// The plugged expressions of a query; `true` when there are none.
lang::Body plug_query(const SaveQuery& q, Bindings* caller);

class SaveStack {
public:
    SaveStack() : stack_(1) {}
    void push_query(SaveQuery q) { stack_.push_back(std::move(q)); }
    SaveQuery pop_query() {
        SaveQuery q = std::move(stack_.back());
        stack_.pop_back();
        return q;
    }
    const SaveQuery& peek() const { return stack_.back(); }
    void push(lang::Expr e, Bindings* b1, Bindings* b2) { stack_.back().push_back({std::move(e), b1, b2}); }
    void pop() { stack_.back().pop_back(); }

private:
    std::vector<SaveQuery> stack_;
};

// The path of a support rule split into its package and its rule ref (OPA's splitPackageAndRule).
std::pair<std::vector<TermPtr>, std::vector<TermPtr>> split_package_and_rule(const Term& path);

class SaveSupport {
public:
    bool exists(const Term& path) const;
    void insert(const Term& path, SupportRule rule);
    void insert_by_package(const std::vector<TermPtr>& package, SupportRule rule);
    // The modules, in the order their packages were first written to.
    std::vector<SupportModule> list() const { return modules_; }

private:
    std::vector<SupportModule> modules_;
    std::map<std::string, std::size_t> index_;
};

class InliningControl {
public:
    bool shallow = false;
    bool nondeterministic_builtins = false;  // evaluate them when their operands are known

    void push_disable_refs(std::vector<TermPtr> refs, bool internal) {
        frames_.push_back({internal, std::move(refs), {}});
    }
    void push_disable_var(std::string var, bool internal) { frames_.push_back({internal, {}, std::move(var)}); }
    void pop_disable() { frames_.pop_back(); }
    bool disabled_ref(const Term& ref, bool ignore_internal) const;
    bool disabled_var(const std::string& var, bool ignore_internal) const;
    // A ref or a var (OPA's Disabled(x)); other terms never are.
    bool disabled(const Term& t, bool ignore_internal) const;

private:
    struct Frame {
        bool internal = false;
        std::vector<TermPtr> refs;
        std::string var;
    };
    std::vector<Frame> frames_;
};

}  // namespace gavel::partial
