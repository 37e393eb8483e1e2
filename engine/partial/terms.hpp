#pragma once
// AST terms as OPA's topdown package handles them during partial
// evaluation: its order of terms (ast.Compare), sets and objects in that
// order, refs and their prefixes, and conversions between ground terms and
// runtime values (data, input and builtin results are values; the residual
// program is terms).
//
// Terms are shared and never changed once made: every operation that would
// change one makes a new one.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ast/terms.hpp"
#include "lang/ast.hpp"
#include "lang/ground.hpp"
#include "lang/term_order.hpp"
#include "runtime/value.hpp"

namespace gavel::partial {

using lang::Body;
using lang::Expr;
using lang::Term;
using lang::TermKind;
using lang::TermPtr;
using Item = std::pair<TermPtr, TermPtr>;

// OPA's ast.Compare (lang/term_order.hpp).
inline int compare(const Term& a, const Term& b) { return lang::compare_terms(a, b); }
inline bool equal(const Term& a, const Term& b) { return compare(a, b) == 0; }
inline bool equal(const TermPtr& a, const TermPtr& b) {
    if (!a || !b) return a == b;
    return a == b || compare(*a, *b) == 0;
}
using lang::compare_bodies;
using lang::compare_exprs;

// OPA's IsGround (a ref's head aside), IsConstant, IsScalar: the compiler's (compiler/ast/terms.hpp).
using compiler::is_comprehension;
using compiler::is_constant;
using compiler::is_scalar;
using lang::is_ground;
bool is_var(const Term& t, std::string_view name);
// `data` or `input`.
bool is_root_document(const Term& t);

TermPtr make_var(std::string name);
TermPtr make_string(std::string s);
TermPtr make_bool(bool b);
TermPtr make_int(int64_t i);
TermPtr make_null();
TermPtr make_ref(std::vector<TermPtr> parts);
TermPtr make_array(std::vector<TermPtr> elems);
// Sorted in OPA's order, duplicates dropped.
TermPtr make_set(std::vector<TermPtr> elems);
// Sorted by key; a repeated key keeps the last value.
TermPtr make_object(std::vector<Item> items);
TermPtr make_call(std::vector<TermPtr> parts);
// A copy of `t` with other children (same kind and flags).
TermPtr with_elems(const Term& t, std::vector<TermPtr> elems);
TermPtr with_items(const Term& t, std::vector<Item> items);

// A set's elements and an object's items in OPA's order (what iteration sees).
inline std::vector<TermPtr> sorted_elems(const Term& set) { return lang::sorted_set_elems(set); }
inline std::vector<Item> sorted_items(const Term& object) { return lang::sorted_object_items(object); }
// The value at `key` in an object (null when absent); element `key` of a set.
TermPtr object_get(const Term& object, const Term& key);
bool set_contains(const Term& set, const Term& elem);

// A runtime value as a term, and a ground term (no variables, refs, calls or
// comprehensions) as a value.
TermPtr from_value(const runtime::Value& v);
std::optional<runtime::Value> to_value(const Term& t);

// Refs.
bool ref_has_prefix(const Term& ref, const Term& prefix);  // both Refs
TermPtr ref_ground_prefix(const TermPtr& ref);
TermPtr ref_constant_prefix(const TermPtr& ref);
TermPtr ref_prefix(const Term& ref, std::size_t n);
TermPtr ref_concat(const Term& ref, const std::vector<TermPtr>& parts, std::size_t from);
TermPtr ref_insert(const Term& ref, const TermPtr& part, std::size_t pos);
bool ref_is_nested(const Term& ref);
// The ref a term stands for: a Ref, or a bare `data`/`input` var as a one-part ref.
TermPtr as_ref(const TermPtr& t);

// Expression shapes (OPA's IsCall, IsEquality, Operator, Operands).
bool is_call(const Expr& e);
bool is_equality(const Expr& e);
bool is_every(const Expr& e);
const TermPtr& operator_term(const Expr& e);  // for calls
std::string operator_name(const Expr& e);     // "eq", "count", "data.a.f" ...
std::size_t operand_count(const Expr& e);
const TermPtr& operand(const Expr& e, std::size_t i);
Expr make_call_expr(std::vector<TermPtr> terms);
Expr make_equality(TermPtr a, TermPtr b);
Expr make_term_expr(TermPtr t);

// "data.a.b" for a ref of a var head and string parts; the ref as text otherwise.
std::string ref_text(const Term& ref);

}  // namespace gavel::partial
