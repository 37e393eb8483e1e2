#pragma once
// Reading request bodies as OPA's server does, with Go's encoding/json: a
// json.Decoder (UseNumber) reads the first value and leaves the rest unread;
// errors are Go's own texts, which OPA puts in its error responses
// ("invalid character 'x' looking for beginning of value", "unexpected EOF",
// "EOF", "json: cannot unmarshal array into Go value of type types.PatchV1").
//
// The syntax check mirrors Go's scanner state by state (encoding/json's
// scanner.go) only to produce the same messages; the value itself is read by
// a JsonDocumentReader (parse_json, or the server's reader of large bodies).

#include <optional>
#include <string>
#include <string_view>

#include "runtime/parse_result.hpp"
#include "runtime/value.hpp"

namespace gavel::runtime {

struct GoDecoded {
    bool ok = false;
    runtime::Value value;  // ok: the first value
    std::string error;     // !ok: Go's error text ("EOF" when there was nothing but space)
    bool eof = false;      // !ok because the input held no value at all (Go's io.EOF)
    std::size_t end = 0;   // ok: where the value ended
};

// Reads a whole JSON document once Go's scanner has accepted it.
using JsonDocumentReader = ParseResult (*)(std::string_view);
ParseResult read_json_document(std::string_view text);  // parse_json with its default limits

// json.Decoder.Decode into `any`.
GoDecoded go_decode(std::string_view text, JsonDocumentReader read = read_json_document);

// OPA's util.UnmarshalJSON: the same, and anything but space after the value is
// "error: invalid character '<token>' after top-level value".
GoDecoded go_unmarshal(std::string_view text, JsonDocumentReader read = read_json_document);

// How Go names a JSON value's kind in an UnmarshalTypeError: "object", "array",
// "string", "number", "bool" (null never mismatches).
std::string_view go_json_kind(const runtime::Value& v);

// "json: cannot unmarshal <kind> into Go value of type <type>" / "... into Go
// struct field <field> of type <type>".
std::string go_type_error(const runtime::Value& v, std::string_view go_type);
std::string go_field_type_error(const runtime::Value& v, std::string_view field, std::string_view go_type);

// The member of `object` Go's decoder assigns to a struct field tagged `name`:
// keys match case-insensitively, the last one wins. Null when absent.
const runtime::Value* go_field(const runtime::Value& object, std::string_view name);

}  // namespace gavel::runtime
