#pragma once
// Walking the AST: every term, every expression, every rule of a module,
// pre-order, into comprehension, every, not-block and template bodies (as
// OPA's GenericVisitor). A callback returning true skips what is below the
// node it was given. Else chains are walked iteratively; nesting depth is
// bounded by the parser's limit.

#include <type_traits>

#include "lang/ast.hpp"

namespace gavel::lang {

template <class Term, class F>
void walk_terms(Term& t, F&& f);
template <class Expr, class F>
void walk_terms_in_expr(Expr& e, F&& f);
template <class Body, class F>
void walk_terms_in_body(Body& b, F&& f);

template <class Term, class F>
void walk_terms(Term& t, F&& f) {
    if (f(t)) return;
    for (auto& e : t.elems) walk_terms(*e, f);
    for (auto& [k, v] : t.items) {
        walk_terms(*k, f);
        walk_terms(*v, f);
    }
    if (t.key) walk_terms(*t.key, f);
    if (t.value) walk_terms(*t.value, f);
    if (t.body) walk_terms_in_body(*t.body, f);
}

template <class Expr, class F>
void walk_terms_in_expr(Expr& e, F&& f) {
    if (e.term) walk_terms(*e.term, f);
    for (auto& v : e.some.vars) walk_terms(*v, f);
    if (e.some.in_call) walk_terms(*e.some.in_call, f);
    if (e.every.key) walk_terms(*e.every.key, f);
    if (e.every.value) walk_terms(*e.every.value, f);
    if (e.every.domain) walk_terms(*e.every.domain, f);
    if (e.every.body) walk_terms_in_body(*e.every.body, f);
    for (auto& c : e.children) walk_terms_in_expr(c, f);
    if (e.body) walk_terms_in_body(*e.body, f);
    for (auto& w : e.withs) {
        walk_terms(*w.target, f);
        walk_terms(*w.value, f);
    }
}

template <class Body, class F>
void walk_terms_in_body(Body& b, F&& f) {
    for (auto& e : b) walk_terms_in_expr(e, f);
}

// The terms an expression holds itself: not those of the bodies it holds
// (every, not, and/or); comprehensions' bodies are reached as terms.
template <class Expr, class F>
void walk_own_terms(Expr& e, F&& f) {
    if (e.term) walk_terms(*e.term, f);
    for (auto& v : e.some.vars) walk_terms(*v, f);
    if (e.some.in_call) walk_terms(*e.some.in_call, f);
    if (e.every.domain) walk_terms(*e.every.domain, f);
    for (auto& w : e.withs) {
        walk_terms(*w.target, f);
        walk_terms(*w.value, f);
    }
}

// Every expression, in bodies at any depth; f(expr) returning true skips the expression's insides.
template <class Body, class F>
void walk_exprs(Body& b, F&& f);

namespace detail {

template <class Term, class F>
void walk_exprs_in_term(Term& t, F&& f) {
    walk_terms(t, [&](auto& x) {
        if (x.body) {
            walk_exprs(*x.body, f);
            if (x.key) walk_exprs_in_term(*x.key, f);
            if (x.value) walk_exprs_in_term(*x.value, f);
            return true;
        }
        return false;
    });
}

}  // namespace detail

template <class Expr, class F>
void walk_exprs_in_expr(Expr& e, F&& f) {
    if (f(e)) return;
    if (e.term) detail::walk_exprs_in_term(*e.term, f);
    if (e.some.in_call) detail::walk_exprs_in_term(*e.some.in_call, f);
    if (e.every.domain) detail::walk_exprs_in_term(*e.every.domain, f);
    if (e.every.body) walk_exprs(*e.every.body, f);
    for (auto& c : e.children) walk_exprs_in_expr(c, f);
    if (e.body) walk_exprs(*e.body, f);
    for (auto& w : e.withs) {
        detail::walk_exprs_in_term(*w.target, f);
        detail::walk_exprs_in_term(*w.value, f);
    }
}

template <class Body, class F>
void walk_exprs(Body& b, F&& f) {
    for (auto& e : b) walk_exprs_in_expr(e, f);
}

// Every rule of a module, each clause of an else chain included.
template <class Module, class F>
void for_each_rule(Module& m, F&& f) {
    for (auto& r : m.rules)
        for (auto* clause = &r; clause; clause = clause->else_rule.get()) f(*clause);
}

// The expressions of a rule: its body and the comprehensions of its head (not the else chain).
template <class Rule, class F>
void walk_rule_exprs(Rule& r, F&& f) {
    for (auto* t : {&r.head.key, &r.head.value})
        if (*t) detail::walk_exprs_in_term(**t, f);
    for (auto& a : r.head.args) detail::walk_exprs_in_term(*a, f);
    walk_exprs(r.body, f);
}

}  // namespace gavel::lang
