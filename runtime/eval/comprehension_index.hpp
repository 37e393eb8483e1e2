#pragma once
// OPA's comprehension index (v1/ast/compile.go, getComprehensionIndex; topdown's
// comprehension cache). In `x := data.xs[_]; ys := [y | data.ys[y].owner = x]` the
// comprehension reads nothing of the outer body but `x`, which it could bind itself:
// OPA evaluates it once per query with `x` unbound, groups its elements by the value
// `x` took, and answers each outer `x` from that map (O(xs + ys) instead of O(xs * ys)).
// What the grouped evaluation shows is OPA's too: a builtin error for an element no
// outer value asks for (strict mode), one print per element, a later value for a
// key given twice in an object comprehension (no conflict).
//
// Found on the compiled AST before the planner fuses its temporaries, as OPA's
// compiler finds it: a comprehension assigned to a variable (`v = <comprehension>`,
// not negated, no `with`) whose body names no variable it cannot bind itself, whose
// refs do not look up by an outer variable, with no nested comprehension closing over
// one, and which binds some variable of the literals before it (or a function's
// arguments): those are its keys.

#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/ast/var_set.hpp"
#include "compiler/ast/var_visitor.hpp"
#include "lang/ast.hpp"

namespace gavel::eval {

// The keys of each indexed comprehension, by its body, sorted by name. No keys: the
// comprehension names no variable of the rest of its clause; OPA evaluates it each time it
// is reached, gavel keeps its value for the query where that shows nothing (PBody::closed).
using ComprehensionIndexKeys = std::unordered_map<const lang::Body*, std::vector<std::string>>;

// The indexed comprehensions of `body` and the bodies nested in it. `candidates`: the
// variables bound before it (input, data and a function's arguments).
void find_comprehension_indexes(const lang::Body& body, compiler::VarSet candidates, const compiler::ArityFn& arity,
                                ComprehensionIndexKeys& out);

}  // namespace gavel::eval
