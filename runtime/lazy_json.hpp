// Small JSON documents read as one lazily built block (used by parse_json).
//
// An admission request is read whole but a policy touches a small part of it
// (the 10-container Pod review: about 110 of its 638 values). Building every
// value and tearing every one down again cost three times the evaluation, so
// a small document is read in two steps:
//
//   * up front, the whole text is validated exactly as the eager reader does
//     (simdjson's stage 1, escapes, numbers, literals, structure, depth), and
//     each non-empty array and object gets its node, sized for its entries
//     and its strings, in one memory block that also keeps the text;
//   * on first access to a container (Value::object_entries(),
//     array_elements(), an object's size()), its own entries are built from
//     the text, in place: keys and strings in the space reserved for them,
//     child containers pointing at their (still lazy) nodes. This happens
//     once; a thread that finds another building the same node waits for it.
//
// The block is one document (node.hpp): its nodes share a single count, so
// copying a value out of it keeps the whole block alive, and dropping the
// last reference frees it with one call, without visiting its nodes.
#pragma once

#include "runtime/limits.hpp"
#include "runtime/value.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gavel::runtime::detail {

// Documents below this size are read lazily; larger ones (data files) are
// read eagerly, with their object keys interned (json.cpp).
inline constexpr std::size_t kLazyJsonBelow = 64 * 1024;

// Runs simdjson's stage 1 over `size` bytes of padded text: the structural
// index and its length, or false.
using Stage1 = bool (*)(const char* padded, std::size_t size, const std::uint32_t*& index, std::uint32_t& count);

// Reads `text` as a lazy document into `out`. Returns false, without a
// result, when the text is not valid JSON or does not suit a document (a
// scalar at the root, a node block over its size limit): the caller reads it
// eagerly then, which also reports any error with its position.
bool read_json_lazily(std::string_view text, const Limits& limits, Stage1 stage1, Value& out);

}  // namespace gavel::runtime::detail
