#pragma once
// Structured logs: one JSON object per line, {"time","level","msg",...fields}.
// Server logs go to stderr; decision logs (one line per admission decision) to stdout.

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/value.hpp"

namespace gavel::webhook {

void log_line(std::string_view level, std::string_view message,
              std::initializer_list<std::pair<std::string_view, runtime::Value>> fields = {});
// Writes one complete JSON object (already without newline) to stdout, whole lines only.
void decision_log_line(const runtime::Value& entry);
std::string utc_timestamp();

}  // namespace gavel::webhook
