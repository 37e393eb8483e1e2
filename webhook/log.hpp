#pragma once
// Structured logs: one JSON object per line, {"time","level","msg",...fields}
// (or logfmt-style text with --log-format text, as OPA's text logs).
// Server logs go to stderr; decision logs (one line per admission decision) to stdout.
// Lines below the level set with set_log_level (OPA's --log-level) are dropped.

#include <initializer_list>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/value.hpp"

namespace gavel::webhook {

enum class LogFormat { Json, JsonPretty, Text };

// "debug", "info", "warn" or "error"; false for another name (nothing changes).
bool set_log_level(std::string_view level);
// "json", "json-pretty" or "text"; false for another name.
bool set_log_format(std::string_view format);
bool log_enabled(std::string_view level);

void log_line(std::string_view level, std::string_view message,
              std::initializer_list<std::pair<std::string_view, runtime::Value>> fields = {});
void log_line(std::string_view level, std::string_view message,
              std::span<const std::pair<std::string_view, runtime::Value>> fields);
// Writes one complete JSON object (already without newline) to stdout, whole lines only.
void decision_log_line(const runtime::Value& entry);
std::string utc_timestamp();
// Nanoseconds since the epoch of a time utc_timestamp() wrote; nullopt for other text.
std::optional<std::int64_t> utc_timestamp_unix_nanos(std::string_view timestamp);

}  // namespace gavel::webhook
