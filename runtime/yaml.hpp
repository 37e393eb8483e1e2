// YAML in (yaml-cpp), producing the same Values OPA gets from a YAML file
// (OPA converts YAML to JSON with sigs.k8s.io/yaml and then decodes JSON).
//
// Scalar typing (YAML 1.2 core schema, the JSON-compatible subset):
//   * quoted ('x', "x") and block (|, >) scalars are always strings;
//   * plain null, Null, NULL, ~ and the empty scalar are null;
//   * plain true/True/TRUE/false/False/FALSE are booleans (YAML 1.1 words
//     such as y, yes, on stay strings; see conformance SOURCE.md);
//   * plain integers [-+]?[0-9]+ (exact, any size; leading zeros ignored),
//     0o17 (octal) and 0x1F (hex) are numbers;
//   * plain floats [-+]?(.[0-9]+|[0-9]+(.[0-9]*)?)([eE][-+]?[0-9]+)? are
//     numbers (exact decimal semantics as in number.hpp);
//   * .inf/.nan have no JSON form and stay strings; everything else is a
//     string (2006-01-02T15:04:05Z07:00, 1.2.3, 0644x ...).
//   * explicit tags !!str, !!int, !!float, !!bool, !!null are honoured;
//     other tags are ignored (the scalar is typed as if untagged).
// Mapping keys: JSON needs string keys, so scalar keys become strings of
// their text (`1: a` -> {"1": "a"}, `true: x` -> {"true": "x"}, null/~ or empty
// -> "null"); a sequence or mapping used as a key is an error. Duplicate keys:
// the last wins.
// Limits: input size, nesting depth and node count (limits.hpp); yaml-cpp
// also refuses nesting beyond its own guard. Invalid UTF-8 is rejected with
// its position. Errors carry 1-based line/column.
#pragma once

#include "runtime/limits.hpp"
#include "runtime/parse_result.hpp"
#include "runtime/value.hpp"
#include "runtime/yaml_scalar.hpp"

#include <string_view>

namespace gavel::runtime {

// All documents of a YAML stream, in order (an empty stream gives none).
ParseAllResult parse_yaml_all(std::string_view text, const Limits& limits = kDefaultLimits);
// The same with plain scalars typed by another library's rules (yaml_scalar.hpp).
ParseAllResult parse_yaml_all(std::string_view text, const Limits& limits, YamlTyping typing);

// Exactly one document: an empty stream gives null; more than one is an error.
ParseResult parse_yaml(std::string_view text, const Limits& limits = kDefaultLimits);

// Loads a YAML *data file* the way OPA's loader does: OPA decodes only the
// first document of a stream (sigs.k8s.io/yaml reads one document), so later
// documents are ignored; an empty file gives null.
ParseResult load_yaml_data(std::string_view text, const Limits& limits = kDefaultLimits);

} // namespace gavel::runtime
