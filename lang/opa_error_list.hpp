#pragma once
// The list of syntax errors OPA 1.7.1's parser reports for a text, computed by
// following its recursive-descent control flow (statement attempts, saved and
// restored parser states, errors that nested attempts add one after another).
// gavel's own grammar (lang/grammar.cpp) builds the AST and words the first
// error; when a parse fails, this gives the rest of OPA's list, so both engines
// report as many errors. No AST comes out: terms are kept only as far as OPA's
// decisions and messages look at them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::lang::opa {

struct ParseError {
    int offset = 0;  // byte offset of the token (or term) the error points at
    int row = 1;     // as OPA reports them: 1-based rows, columns in code points
    int col = 0;
    std::string message;
};

struct ErrorListOptions {
    bool v0 = false;          // Rego v0: `in`, `every`, `contains` and `if` are keywords once imported
    bool skip_rules = false;  // a query as `opa eval` parses it: statements are not tried as rules
    // Parser calls nested deeper than this, or terms that deep, abandon the reading (nullopt): the
    // stack stays small.
    int max_depth = 4000;
};

// OPA's parse errors for a module (or query) text, in OPA's order; empty when OPA's
// parser finds none. nullopt when the text nests deeper than this reading follows.
std::optional<std::vector<ParseError>> parse_error_list(std::string_view text, const ErrorListOptions& options = {});

}  // namespace gavel::lang::opa
