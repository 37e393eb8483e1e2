#pragma once
// Test rules that share a name, as `opa test` sees them: each definition of
// `test_x` is a test of its own. The first keeps its name; the k-th after it
// is renamed `test_x#0k` (OPA's rewriteDuplicateTestNames), so a failing
// second definition is reported instead of hiding behind a passing first.

#include <vector>

#include "lang/ast.hpp"

namespace gavel::lang {

// Renames, in place, every definition of a `test_` rule path after its first,
// counting over all `modules` in the order given. Rules whose names do not
// start with `test_` are left alone. Idempotent.
void number_duplicate_tests(const std::vector<Module*>& modules);

}  // namespace gavel::lang
