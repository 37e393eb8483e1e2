#pragma once
// Where a package and a rule sit in `data`, as names: what the planner's rule tree, the
// rego.metadata.* rewrite and the partial-evaluation filters' annotation lookup key by.

#include <string>
#include <vector>

#include "lang/ast.hpp"

namespace gavel::compiler {

// The package's path below `data`: a package's path is kept as written, not rooted at data
// (`package a.b` is the ref a.b -> {"a", "b"}; data.a.b is what resolve_refs and rule_full_ref make of it).
std::vector<std::string> package_path(const lang::Module& m);

// The rule's path: its package's, then its head ref's parts up to the first that is
// not a string (the first, a var, by its name): `a.b[x] contains ...` in package p ->
// {"p", "a", "b"}.
std::vector<std::string> rule_path(const lang::Module& m, const lang::Rule& r);

}  // namespace gavel::compiler
