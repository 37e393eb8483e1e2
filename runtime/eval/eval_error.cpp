#include "runtime/eval/eval_error.hpp"

#include <fmt/format.h>

namespace gavel {

std::string EvalError::to_string() const {
    if (file.empty() && !text.empty()) return fmt::format("{}: {}: {}", text, code, message);
    if (file.empty() && line > 0) return fmt::format("{}:{}: {}: {}", line, col, code, message);
    if (file.empty()) return fmt::format("{}: {}", code, message);
    return fmt::format("{}:{}: {}: {}", file, line, code, message);
}

}  // namespace gavel
