// strings.render_template: a subset of Go's text/template, executed on Rego
// values the way OPA's (Go values converted from JSON) would print.
//
// Supported: text; actions `{{pipeline}}` with `{{-` / `-}}` trimming and
// `{{/* comments */}}`; `.`, `.a.b`, `$`, `$x`, `$x.a`; string, raw-string,
// integer, true/false/nil literals; parenthesised pipelines and `|` chains;
// `{{if}}` / `{{else if}}` / `{{else}}` / `{{end}}`, `{{range}}` (with
// `$i, $e :=` or `$e :=`, over arrays, sets and objects, with `{{else}}`),
// `{{with}}`, variable declaration `{{$x := ...}}` and assignment
// `{{$x = ...}}`; functions len, index, eq, ne, lt, le, gt, ge, not, and, or,
// print, println.
// Not supported (an error): define/template/block, break/continue, printf,
// html, js, urlquery, slice, call, method calls.
// A key missing from an object prints `<undefined>`, as OPA's conformance
// suite expects; null prints `<no value>` (Go's nil).
#pragma once

#include <string>
#include <string_view>

#include "runtime/value.hpp"
#include "runtime/work_budget.hpp"

namespace gavel::stdlib {

struct TemplateResult {
    bool ok = false;
    std::string output;
    std::string error;
    bool stopped = false;  // the budget said stop (the evaluation's deadline or memory limit)
};

// With a budget, each step of the execution and the text it writes are work
// asked of it.
TemplateResult render_template(std::string_view tmpl, const runtime::Value& vars,
                               runtime::WorkBudget* budget = nullptr);

}  // namespace gavel::stdlib
