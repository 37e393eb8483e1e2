#pragma once
// What ends an evaluation early, as OPA names it; part of the embedding API
// (engine/engine.hpp), defined here because the evaluator makes them.

#include <cstdint>
#include <string>

namespace gavel {

// An evaluation error as OPA reports it: code, message and where.
struct EvalError {
    std::string code;  // eval_conflict_error, eval_type_error, eval_builtin_error, eval_cancel_error ...
    std::string message;
    std::string file;  // empty when the error has no location
    uint32_t line = 0;
    uint32_t col = 0;
    std::string text;  // the expression's source text (what a query's error names, having no file)

    // OPA's form: "<file>:<line>: <code>: <message>"; in a query (no file) the expression's text
    // stands for the place: `to_number("x"): eval_builtin_error: ...`; "<code>: <message>" when
    // the error has no place at all.
    std::string to_string() const;
};

}  // namespace gavel
