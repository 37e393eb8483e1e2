#pragma once
// The type checker's errors, as OPA's check.go words them: a message, detail
// lines (OPA's ErrorDetails.Lines(), printed after the message each on a line
// of its own behind a tab), and whether an unknown type caused it (OPA's
// causedByNilType: such an error is dropped when a more precise one was
// reported for the same expression).

#include <memory>
#include <string>
#include <vector>

#include "compiler/types/type.hpp"
#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::compiler::types {

struct TypeError {
    lang::Location loc;
    std::string message;
    std::vector<std::string> details;
    bool nil_cause = false;
    std::shared_ptr<const lang::JsonTree> detail;  // OPA's details object, for JSON output
    std::string hint;                              // gavel's advice beside OPA's message (Diagnostic::hint)

    lang::Diagnostic diagnostic() const;  // rego_type_error, details appended to the message
};
using TypeErrors = std::vector<TypeError>;

TypeError plain_error(const lang::Location& loc, std::string message);
// "<name>: <what>" with `have: (...)` and `want: (...)` (OPA's ArgErrDetail).
// `want`: the function's type (its argument names shown), with its result as an argument or not.
TypeError arg_error(const lang::Location& loc, const std::string& name, const std::string& what,
                    const std::vector<TypePtr>& have, const Type& want, bool with_result);
// "match error" with the types of both sides (OPA's UnificationErrDetail).
TypeError match_error(const lang::Location& loc, const TypePtr& left, const TypePtr& right);
// "undefined ref: <ref>" pointing at part `pos`, which the type does not have
// (OPA's RefErrInvalidDetail): `have` the part's type (null: show the part
// itself), `want` the key type, `one_of` the keys that exist, as Rego values.
TypeError ref_error_invalid(const lang::Location& loc, const lang::Term& ref, std::size_t pos, const TypePtr& have,
                            const TypePtr& want, const std::vector<std::string>& one_of);
// A ref reaching into `have`, the type of its first `reached` parts, which
// cannot be reached into (OPA's RefErrUnsupportedDetail at position
// reached - 1); a function named as a value says so.
TypeError ref_error_unsupported(const lang::Location& loc, const lang::Term& ref, std::size_t reached,
                                const TypePtr& have);

// OPA's sort of type errors: by location (file, row, column; none last), then message.
void sort_errors(TypeErrors& errors);

}  // namespace gavel::compiler::types
