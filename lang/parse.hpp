#pragma once
// parse(text, file, options) -> Module | Diagnostics. Never throws for bad
// input: every problem comes back as a Diagnostic with file:line:col.

#include <optional>
#include <string>

#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::lang {

struct ParseOptions {
    bool v0_compatible = false;          // parse the pre-1.0 dialect unless a module imports rego.v1
    bool experimental_keywords = false;  // allow `import future.keywords.and` / `.or`
    // A query is not also read as a rule (OPA's rego package, which `opa eval` uses, sets
    // SkipRules): a broken `x := ...` then has no second error about a rule's value.
    bool skip_rules = false;
    // OPA's parser stops at 100,000 recursive calls: 8 per parenthesis, 2 per array
    // level, 1 per chained operator (`1 + 1 + ...`). The deepest trees these
    // allow are walked by every later stage on the large stacks of runtime/large_stack.hpp.
    std::size_t max_nesting = 50000;        // brackets, braces and parentheses
    std::size_t max_depth = 100000;         // AST levels: terms in terms, calls, infix operators, comprehension bodies
    std::size_t max_else_branches = 10000;  // else clauses of one rule
    std::size_t max_bytes = 64u << 20;      // one module's size
};

struct ModuleResult {
    std::optional<Module> module;  // set when there were no errors
    Diagnostics diagnostics;
    bool ok() const { return module.has_value(); }
};

ModuleResult parse_module(std::string file, std::string text, const ParseOptions& options = {});

// A query: body literals separated by `;` or line breaks (`x := 1; y := x`).
struct QueryResult {
    SourcePtr source;  // keeps the body's Locations valid
    Body body;
    Diagnostics diagnostics;
    bool ok() const { return diagnostics.empty(); }
};

QueryResult parse_query(std::string text, const ParseOptions& options = {}, std::string name = "query");

// One term (`{1, 2}`, `{"a": [x]}`), e.g. an input written in Rego rather than JSON.
struct TermResult {
    SourcePtr source;
    TermPtr term;
    Diagnostics diagnostics;
    bool ok() const { return diagnostics.empty(); }
};

TermResult parse_term(std::string text, const ParseOptions& options = {}, std::string name = "term");

}  // namespace gavel::lang
