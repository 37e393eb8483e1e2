#pragma once
// OPA's order of AST terms (ast.Compare): kinds in OPA's order (null, boolean,
// number, string, template string, var, ref, array, object, set, the
// comprehensions, call), numbers by value, sets and objects by their sorted
// elements. It sorts the sets and objects `opa parse` prints and those partial
// evaluation builds; both must agree with OPA, so there is one.
//
// Shapes OPA has no order for (the experimental `and`/`or` literals and braced
// groups) sort after every other expression, by source position.

#include <string_view>
#include <utility>
#include <vector>

#include "lang/ast.hpp"

namespace gavel::lang {

// Negative, zero or positive as a is before, equal to or after b.
int compare_terms(const Term& a, const Term& b);
// A null term is before every other.
int compare_terms(const TermPtr& a, const TermPtr& b);
// OPA's Expr.Compare without the index (callers compare positions themselves).
int compare_exprs(const Expr& a, const Expr& b);
int compare_bodies(const Body& a, const Body& b);
// Numbers written as literals (`1`, `1.0`, `-2e3`), by value.
int compare_numbers(std::string_view a, std::string_view b);

// Terms in OPA's order, equal ones as they were (no repeats dropped): how OPA's
// compiler visits a set literal's elements when it rewrites them.
void stable_sort_terms(std::vector<TermPtr>& terms);
// An object literal's items by key in OPA's order, equal keys as they were: how OPA's
// compiler visits them when it rewrites the literal (object.Map goes by sorted keys).
void stable_sort_items(std::vector<std::pair<TermPtr, TermPtr>>& items);
// A set's elements in OPA's order, repeats dropped as drop_repeated_elems does.
void sort_set_elems(std::vector<TermPtr>& elems);
std::vector<TermPtr> sorted_set_elems(const Term& set);
// An object's items by key; a repeated key keeps its first key term and its
// last value, as OPA's object insert does.
void sort_object_items(std::vector<std::pair<TermPtr, TermPtr>>& items);
std::vector<std::pair<TermPtr, TermPtr>> sorted_object_items(const Term& object);

// As OPA's parser builds a set or object literal (ast.NewSet, ast.NewObject): a
// repeated element is dropped, the first kept; a repeated key keeps its first key
// term and the value written last. What remains stays in the order written.
// "Repeated" is OPA's insert test: equal terms, except that a number written as an
// integer repeats only numbers written so ({2.0, 2} keeps both, {2, 2.0} one).
void drop_repeated_elems(std::vector<TermPtr>& elems);
void drop_repeated_keys(std::vector<std::pair<TermPtr, TermPtr>>& items);

}  // namespace gavel::lang
