#pragma once
// How a plain (untagged, unquoted) YAML scalar resolves when OPA reads YAML:
// sigs.k8s.io/yaml, that is go-yaml v2's YAML 1.1 rules turned into JSON.
//   * y/yes/on/true and n/no/off/false in their three spellings are booleans;
//   * integers in Go's base-prefixed syntax, underscores dropped: 010 is 8,
//     0x1F 31, 0o17 15, 0b101 5, 1_000 1000, +12 12;
//   * other numbers are floats, then written as Go's encoding/json writes a
//     float64 (1e3 is 1000, 09 is 9, very large integers lose precision);
//   * dates and times (2001-12-14, 2001-12-14T21:59:43.1-05:00) stay strings
//     with their text: go-yaml resolves them to time.Time but, decoding into
//     interface{} as sigs.k8s.io/yaml does, keeps the text;
//   * .inf and .nan are errors (JSON has no such numbers).
// Everything else is a string.

#include <optional>
#include <string>
#include <string_view>

#include "runtime/value.hpp"

namespace gavel::runtime {

struct YamlScalar {
    Value value;
    std::optional<std::string> error;  // set when the scalar cannot become JSON
};

YamlScalar resolve_plain_yaml_scalar(std::string_view s);

// Which library's rules type plain scalars.
enum class YamlTyping : unsigned char {
    SigsK8sYaml,  // as above: OPA's loader, kubectl
    GoYamlV3,     // go-yaml v3 into interface{} (Gatekeeper's gator reads suites and objects so):
                  // only true/false are booleans (yes, on, y stay strings)
};
YamlScalar resolve_plain_yaml_scalar(std::string_view s, YamlTyping typing);

// A plain mapping key as text: booleans and integers as they resolve ("true", "8"), anything else as written.
std::string yaml_key_text(std::string_view s);

}  // namespace gavel::runtime
