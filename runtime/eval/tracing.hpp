#pragma once
// The evaluator's tracing interface; part of the embedding API
// (engine/engine.hpp), defined here because the evaluator emits the events.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/value.hpp"

namespace gavel {

// ---- tracing ------------------------------------------------------------------------
// An EvalOptions::tracer sees the evaluation step by step, as OPA's tracer does
// (`opa eval --explain`, the REPL's `trace`, `opa test --coverage`):
//   Enter  a rule clause or function clause starts (location: the clause; text: its first line)
//   Eval   a body expression is about to be evaluated (location and text: the expression)
//   Redo   evaluation backtracks into an expression that produced a solution, looking for more
//   Fail   an expression produced no (more) solutions
//   Exit   a rule or function clause's body succeeded (location: the clause)
//   Note   trace(msg) was called (text: msg)
// Events come from the evaluating thread, synchronously; the event and its
// views are valid only during the call. With no tracer the evaluator pays one
// null check per expression.
enum class TraceOp : uint8_t { Enter, Eval, Redo, Fail, Exit, Note };

const char* to_string(TraceOp op);  // "Enter", "Eval" ...

struct TraceEvent {
    TraceOp op = TraceOp::Eval;
    std::string_view file;
    uint32_t line = 0;
    uint32_t col = 0;
    std::string_view text;  // the expression's source text, or the clause's first line
    uint32_t depth = 0;     // rule/function nesting: 0 for the query, 1 inside a rule it reads ...

    // Eval/Redo/Fail: the variables written in the expression that are bound at
    // this point, by name in order of appearance, with their values.
    std::vector<std::pair<std::string, runtime::Value>> bindings() const {
        return bindings_fn ? bindings_fn(context) : std::vector<std::pair<std::string, runtime::Value>>{};
    }
    // Fail on a comparison (==, !=, <, <=, >, >=, =, :=), a call or a lone term:
    // the value of each operand that is not a constant, by its source text,
    // evaluated where the expression failed (`with` still in force); nullopt for
    // an operand that is undefined there. Empty for other expressions.
    std::vector<std::pair<std::string, std::optional<runtime::Value>>> operands() const {
        return operands_fn ? operands_fn(context)
                           : std::vector<std::pair<std::string, std::optional<runtime::Value>>>{};
    }

    // Set by the evaluator.
    const void* context = nullptr;
    std::vector<std::pair<std::string, runtime::Value>> (*bindings_fn)(const void*) = nullptr;
    std::vector<std::pair<std::string, std::optional<runtime::Value>>> (*operands_fn)(const void*) = nullptr;
};

class Tracer {
public:
    virtual ~Tracer() = default;
    virtual void trace(const TraceEvent& event) = 0;
};

}  // namespace gavel
