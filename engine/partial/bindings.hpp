#pragma once
// The variable bindings of one query or rule evaluation, as OPA's topdown
// keeps them: a variable is bound to a term together with the bindings that
// term's own variables are read in, so unifying a rule's head with its
// caller links two binding lists without copying either. Each list has the
// id of its query; a variable left unbound when a residual expression is
// written out is renamed with that id (`x` of query 3 becomes `x3`), so the
// variables of different rule evaluations stay apart in the result.

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/partial/terms.hpp"

namespace gavel::partial {

class Bindings {
public:
    explicit Bindings(uint64_t id) : id_(id) {}
    Bindings(const Bindings&) = delete;
    Bindings& operator=(const Bindings&) = delete;

    uint64_t id() const { return id_; }

    // Binds `var` to `value` (whose variables are read in `owner`).
    void bind(const TermPtr& var, TermPtr value, Bindings* owner);
    // Undoes a bind (OPA's delete: the last entry takes the freed place).
    void unbind(const std::string& var);

    // The term a variable stands for, following bindings to the end; other
    // terms are returned as they are.
    std::pair<TermPtr, Bindings*> apply(const TermPtr& t);

    // The term with its bound variables replaced (OPA's Plug). With a
    // `caller`, unbound variables of other binding lists are renamed with
    // their list's id (PlugNamespaced).
    TermPtr plug(const TermPtr& t) { return plug_namespaced(t, nullptr); }
    TermPtr plug_namespaced(const TermPtr& t, Bindings* caller);
    lang::Expr plug_expr_namespaced(const lang::Expr& e, Bindings* caller);

    // A variable of this list as it appears to `caller` (OPA's namespaceVar).
    TermPtr namespace_var(const TermPtr& v, Bindings* caller);
    // Every variable of a comprehension renamed for `caller` (OPA's Namespace).
    TermPtr namespace_comprehension(const TermPtr& t, Bindings* caller);

    // Each bound variable with its value plugged for `caller`, in OPA's order.
    void iter(Bindings* caller, const std::function<void(const TermPtr& var, const TermPtr& value)>& f);
    bool empty() const { return entries_.empty(); }

private:
    struct Entry {
        TermPtr key;  // the variable as it was bound
        TermPtr value;
        Bindings* owner;
    };
    const Entry* find(const std::string& var) const;
    TermPtr namespace_term(const TermPtr& t, Bindings* caller);
    lang::Body namespace_body(const lang::Body& b, Bindings* caller);

    uint64_t id_;
    std::vector<Entry> entries_;
};

}  // namespace gavel::partial
