#pragma once
// What a plain (unquoted, untagged) YAML scalar resolves to, as the Go YAML
// libraries OPA and Gatekeeper use resolve it. The one place that decides it:
// data files, METADATA blocks, `opa parse`'s annotations, gator's objects.
//   * null: empty, ~, null/Null/NULL;
//   * booleans: true/false in three spellings; with go-yaml v2 (through
//     sigs.k8s.io/yaml, OPA's loader) also y/yes/on and n/no/off;
//   * integers in Go's base-prefixed syntax, underscores dropped: 010 is 8,
//     0x1F 31, 0o17 15, 0b101 5, 1_000 1000, +12 12 (as far as int64/uint64 go);
//   * other numbers are float64s (1e3, 09, 99999999999999999999 rounded);
//   * .inf and .nan are floats JSON cannot hold (an error where JSON is made);
//   * YYYY-M-D dates and times: go-yaml v3 decodes them into time.Time, which
//     becomes its RFC 3339 text; v2 keeps the text (sigs.k8s.io/yaml).
// Everything else is a string.

#include <string>
#include <string_view>

namespace gavel::lang::yaml {

// Which library's rules type plain scalars, and how their numbers are spelt once they are values.
enum class Typing : unsigned char {
    SigsK8sYaml,     // go-yaml v2, then JSON (OPA's loader, kubectl): floats as encoding/json writes them
    GoYamlV3,        // go-yaml v3, then JSON (gator's suites and objects, `opa parse`'s annotations)
    GoYamlV3Values,  // go-yaml v3, then ast.InterfaceToValue (rego.metadata.*): floats as strconv's 'g'
};

struct PlainScalar {
    enum class Kind : unsigned char { Null, Boolean, Integer, Float, NotFinite, Timestamp, String };
    Kind kind = Kind::String;
    bool boolean = false;
    // Integer: its decimal digits (sign included); Float: its spelling for the typing; Timestamp:
    // RFC 3339 with nanoseconds, as Go's time.Time marshals; NotFinite: encoding/json's error.
    std::string text;
};

PlainScalar resolve_plain_scalar(std::string_view s, Typing typing);

// A plain mapping key as go-yaml v2 keys a map that JSON then spells: booleans and integers as
// they resolve ("true", "8"), anything else as written.
std::string plain_key_text(std::string_view s);

// The short tag go-yaml names a resolved plain scalar by in its errors ("!!int").
std::string_view resolved_tag(const PlainScalar& s);

// An explicit tag in the short form go-yaml prints it in ("tag:yaml.org,2002:int" is "!!int").
std::string short_tag(std::string_view tag);

}  // namespace gavel::lang::yaml
