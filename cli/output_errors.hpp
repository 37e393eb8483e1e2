#pragma once
// Errors as OPA's CLI prints them (its presentation package's OutputError):
// in JSON {"message", "code", "location", "details"} (details: a parse error's
// line and column), and as text "1 error occurred: file:row: code: message".

#include <memory>
#include <string>
#include <vector>

#include "cli/output_json.hpp"
#include "engine/engine.hpp"
#include "lang/diagnostics.hpp"

namespace gavel::cli {

struct OutputError {
    std::string message;
    std::string code;
    bool has_location = false;
    std::string file;
    uint32_t row = 0, col = 0;
    std::string detail_line;                        // parse errors: the offending line (OPA's details.line/idx)
    std::string text;                               // Error() text for the non-JSON formats
    std::shared_ptr<const lang::JsonTree> details;  // type errors: OPA's details object
};

OutputError from_diagnostic(const lang::Diagnostic& d);
OutputError from_eval_error(const EvalError& err);
OutputError plain_error(std::string message);

// The "errors" array.
Json errors_json(const std::vector<OutputError>& errors);
// OutputErrors.Error(): "1 error occurred: X" or "N errors occurred:\nX\nY".
std::string errors_text(const std::vector<OutputError>& errors);

}  // namespace gavel::cli
