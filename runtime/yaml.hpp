// YAML in (libyaml, through lang/yaml_events.hpp), producing the same Values
// OPA gets from a YAML file (OPA converts YAML to JSON with sigs.k8s.io/yaml,
// that is go-yaml v2, and then decodes JSON).
//
// Scalar typing: yaml_scalar.hpp (YAML 1.1 words, Go's numbers, dates as
// their text); quoted and block scalars are strings; !!int, !!float, !!bool,
// !!null must agree with the text; any other tag (!!str, !foo, !!binary) makes
// a string, as go-yaml leaves a tag it does not resolve.
// Mapping keys: JSON needs string keys, so scalar keys become strings of
// their text (`1: a` -> {"1": "a"}, `true: x` -> {"true": "x"}); a null key
// (~, null) is sigs.k8s.io/yaml's error (gator's go-yaml v3 reading: "null"). Duplicate keys: the
// last wins (go-yaml v2's Unmarshal). `<<` merges mappings as go-yaml does.
// Errors are go-yaml v2's texts ("yaml: line 2: found character that cannot
// start any token", "yaml: invalid map key: []interface {}{\"a\"}",
// "json: unsupported value: +Inf"), in its order; callers add OPA's prefix.
// Limits: input size, nesting depth and node count (limits.hpp), each an
// error of its own words. Errors carry 1-based line/column.
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

// OPA's util.Unmarshal (`eval -i`, REST bodies sent as YAML): a UTF-8 byte
// order mark dropped, JSON when the text is JSON, else YAML as load_yaml_data
// reads it; an error is YAML's.
ParseResult parse_json_or_yaml(std::string_view text, const Limits& limits = kDefaultLimits);

}  // namespace gavel::runtime
