#pragma once
// A parsed module in the shape OPA's parser builds (ast/parser.go): what
// `opa parse` prints and what the compiler's stages start from.
//   * `p { a } { b }`: each further body is a rule of its own, its text the
//     braces, with a copy of the head whose arguments, key and value sit there
//     too; the first rule's text ends with its own body.
//   * Every single-value rule has a value: `true` when none is written (at the
//     head for `p[x] if`, else without a location, as OPA's parser leaves it).
//     Every rule has a body: `true`, at the rule, when none is written.
//   * An else clause carries a copy of its rule's head with its own value
//     (`true` when none is written).
//   * Each `_` is a variable of its own, `$0`, `$1` ... in source order; the
//     copied heads of else clauses and chained bodies get fresh ones for their
//     `_` arguments.
// Annotations follow their rules to their new positions. A module normalised
// once is left as it is. The package path stays as written (the compiler reads
// it so); OPA's parser roots it at `data`, and the AST printers print it so.

#include "lang/ast.hpp"

namespace gavel::lang {

void normalize_module(Module& module);

// Each `_` of a query a variable of its own, as OPA's parser names them.
void name_wildcards(Body& body);

}  // namespace gavel::lang
