#pragma once
// The JSON details of type errors, in OPA's shapes (check.go's ArgErrDetail,
// UnificationErrDetail, RefErrInvalidDetail, RefErrUnsupportedDetail), with
// types written as OPA's types package marshals them: {"type": "array",
// "static": [...], "dynamic": ...}, keys in Go's sorted map order, a builtin's
// argument names as "name". (OPA also writes each builtin argument's
// description; gavel's declarations carry none.)

#include <string>
#include <vector>

#include "compiler/types/type.hpp"
#include "lang/ast.hpp"
#include "lang/json_tree.hpp"

namespace gavel::compiler::types {

lang::JsonTree type_detail(const TypePtr& t, const std::string& name = "");

lang::JsonTree arg_detail(const std::vector<TypePtr>& have, const Type& want, bool with_result);
lang::JsonTree unification_detail(const TypePtr& a, const TypePtr& b);
// `one_of`: the keys as Rego values ("a" quoted, 1, true).
lang::JsonTree ref_invalid_detail(const lang::Term& ref, std::size_t pos, const TypePtr& have, const TypePtr& want,
                                  const std::vector<std::string>& one_of);
lang::JsonTree ref_unsupported_detail(const lang::Term& ref, std::size_t pos, const TypePtr& have);

}  // namespace gavel::compiler::types
