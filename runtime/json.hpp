// JSON in (simdjson's SIMD stage 1, then our own tree builder; json.cpp) and
// out (compact and pretty), OPA-compatible.
//
// Reading:
//   * numbers keep their exact value: integers of any size stay exact (the raw
//     number text is used, never a lossy double), decimals beyond double range
//     (1e400) keep their literal text; see number.hpp.
//   * strings: all JSON escapes; \u surrogate pairs combine; a lone or
//     mismatched surrogate becomes U+FFFD (as Go's encoding/json does);
//     unescaped control characters are rejected; invalid UTF-8 in the input
//     is rejected with its byte offset and line:column.
//   * duplicate object keys: the last one wins (Go's encoding/json).
//   * limits (limits.hpp): nesting depth and input size give clear errors.
//   * documents under 64 KiB (requests) become one lazily built block
//     (lazy_json.hpp); larger ones (data) are built eagerly, their nodes
//     from a few large arena chunks (node_arena.hpp), equal object keys
//     sharing one string node. A thread-local stage-1 index, padded buffer
//     and build stack are reused.
//
// Writing (Go's encoding/json with SetEscapeHTML(false), as OPA prints):
//   * object keys in canonical order; string keys are therefore bytewise
//     sorted as Go sorts map keys. Non-string keys are written as their compact
//     JSON text inside a string (key 1 -> "1", key [1] -> "[1]"); if an object
//     has such keys, entries are ordered by the written key text and, should
//     two keys write the same text (1 and "1"), the last in canonical order
//     is kept (OPA fills a Go map in that order).
//   * sets are written as arrays in canonical order.
//   * escapes: \" \\ \n \r \t \b \f, other control characters as \u00XX,
//     U+2028/U+2029 as \u2028/\u2029; invalid UTF-8 bytes as \ufffd;
//     everything else (incl. non-ASCII UTF-8) as is.
//   * pretty: two-space indent like json.MarshalIndent(v, "", "  "); empty
//     arrays/objects stay "[]" / "{}".
#pragma once

#include "runtime/limits.hpp"
#include "runtime/parse_result.hpp"
#include "runtime/value.hpp"
#include "runtime/work_budget.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gavel::runtime {

// Parses exactly one JSON value (surrounding whitespace allowed). Documents
// under 64 KiB are read lazily (lazy_json.hpp): validated whole, but their
// arrays and objects are built on first access.
ParseResult parse_json(std::string_view text, const Limits& limits = kDefaultLimits);

namespace detail {
// Builds every value up front, whatever the size (tests compare the two).
ParseResult parse_json_eagerly(std::string_view text, const Limits& limits = kDefaultLimits);
}  // namespace detail

enum class JsonStyle : std::uint8_t { Compact, Pretty };

std::string to_json(const Value& v, JsonStyle style = JsonStyle::Compact);
void append_json(std::string& out, const Value& v, JsonStyle style = JsonStyle::Compact);

// Appends `s` as a JSON string literal, quotes included.
void append_json_string(std::string& out, std::string_view s);

// The text an object key has once OPA turns a value into Go's JSON types (ast.JSON, as
// json.marshal, yaml.marshal and urlquery.encode_object do): a string as it is, any other
// key its compact JSON as Go's json.Encoder writes it (<, > and & escaped). Keys of one
// text are then one: the last in canonical order keeps its value.
std::string json_key_text(const Value& key);

// An object's entries by json_key_text, stably sorted by `less` over the texts (so in
// canonical order within one text), with only the last of adjacent entries of one text
// kept: the object as a Go map filled in canonical order holds it.
template <class Less>
std::vector<std::pair<std::string, const Value*>> json_key_text_entries(const Value& object, Less less) {
    std::vector<std::pair<std::string, const Value*>> entries;
    for (const auto& e : object.object_entries()) entries.emplace_back(json_key_text(e.key), &e.value);
    std::stable_sort(entries.begin(), entries.end(),
                     [&](const auto& x, const auto& y) { return less(x.first, y.first); });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (i + 1 < entries.size() && entries[i].first == entries[i + 1].first) continue;
        if (kept != i) entries[kept] = std::move(entries[i]);
        ++kept;
    }
    entries.resize(kept);
    return entries;
}

// As Go's json.Encoder writes: `escape_html` escapes <, > and & as \u003c,
// \u003e and \u0026 (Go's default, which OPA's server keeps); `indent`
// starts pretty output that many levels in (a value inside a larger document).
struct JsonWriteOptions {
    JsonStyle style = JsonStyle::Compact;
    bool escape_html = false;
    std::size_t indent = 0;
};
void append_json(std::string& out, const Value& v, const JsonWriteOptions& options);
void append_json_string(std::string& out, std::string_view s, const JsonWriteOptions& options);
// The same for a builtin (json.marshal), whose text can be far larger than the
// value (one value shared a million times over): `out` grows only within
// `budget`'s memory limit, and each value written is work. False when the
// evaluation must stop (`out` then holds part of the text).
bool append_json(std::string& out, const Value& v, const JsonWriteOptions& options, WorkBudget& budget);

}  // namespace gavel::runtime
