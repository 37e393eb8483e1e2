// Errors are values: parsers return a ParseResult instead of throwing.
#pragma once

#include "runtime/value.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace gavel::runtime {

struct ParseError {
    std::string message;     // complete, human readable; includes the position
    std::size_t offset = 0;  // byte offset into the input (0-based)
    std::size_t line = 0;    // 1-based; 0 when unknown
    std::size_t column = 0;  // 1-based, in bytes; 0 when unknown
};

struct ParseResult {
    bool ok = false;
    Value value;
    ParseError error;
    explicit operator bool() const noexcept { return ok; }
};

// Several documents (YAML streams).
struct ParseAllResult {
    bool ok = false;
    std::vector<Value> documents;
    ParseError error;
    explicit operator bool() const noexcept { return ok; }
};

// 1-based line and byte column of `offset` in `text`.
void locate(std::string_view text, std::size_t offset, std::size_t& line, std::size_t& column) noexcept;

// Builds an error at `offset`: message becomes "<what> at line L, column C (byte offset O)".
ParseError make_parse_error(std::string_view text, std::size_t offset, std::string_view what);

}  // namespace gavel::runtime
