#pragma once
// What ends an evaluation early, as OPA names it; part of the embedding API
// (engine/engine.hpp), defined here because the evaluator makes them.

#include <cstdint>
#include <string>

namespace gavel {

// An evaluation error as OPA reports it: code, message and where.
struct EvalError {
    std::string code;     // eval_conflict_error, eval_type_error, eval_builtin_error, eval_cancel_error ...
    std::string message;
    std::string file;     // empty when the error has no location
    uint32_t line = 0;
    uint32_t col = 0;

    // "<file>:<line>: <code>: <message>", or "<code>: <message>" without a location (OPA's form).
    std::string to_string() const;
};

}  // namespace gavel
