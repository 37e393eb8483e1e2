#pragma once
// RFC 6902 JSON Patch on Values (for PATCH /v1/data, which kube-mgmt uses to
// delete replicated objects) and RFC 6901 JSON pointers.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/value.hpp"

namespace gavel::webhook {

// "/a~1b/c~0d" -> {"a/b", "c~d"}. "" and "/" are the whole document (OPA's data
// API treats "/" so). nullopt when the pointer does not start with '/' or has a bad escape.
std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer);
// {"a/b", "c~d"} -> "/a~1b/c~0d"
std::string json_pointer(const std::vector<std::string>& segments);
std::string escape_pointer_segment(std::string_view segment);

// Applies `ops` (an array of {op, path, value, from}) to `doc`; every op path is
// taken below `base` (segments). nullopt with `error` when an op is invalid or
// its target is missing; nothing is half applied.
std::optional<runtime::Value> apply_json_patch(const runtime::Value& doc, const runtime::Value& ops,
                                               const std::vector<std::string>& base, std::string& error);

// The value at `path`, or null when absent.
const runtime::Value* value_at(const runtime::Value& doc, const std::vector<std::string>& path);

}  // namespace gavel::webhook
