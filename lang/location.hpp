#pragma once
// Source text and positions. Every AST node carries a Location so that every
// diagnostic, at any stage, can name file:line:col.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::lang {

// One source file (or query text). Shared by the module parsed from it and by
// every Location pointing into it, so diagnostics can show the offending line.
class Source {
public:
    Source(std::string name, std::string text);

    const std::string& name() const { return name_; }
    const std::string& text() const { return text_; }

    // 1-based line and column of a byte offset. The column counts characters (UTF-8 code
    // points), as OPA's scanner does: `"ü"; x` has x at column 6, not 7.
    std::pair<uint32_t, uint32_t> line_col(std::size_t offset) const;
    // The text of a 1-based line, without its line break.
    std::string_view line_text(uint32_t line) const;

private:
    std::string name_;
    std::string text_;
    std::vector<std::size_t> line_starts_;
    std::vector<std::size_t> continuation_bytes_;  // offsets of UTF-8 continuation bytes (ascending)
};

using SourcePtr = std::shared_ptr<const Source>;

struct Location {
    const Source* source = nullptr;  // owned by the Module (or query) that holds the node
    uint32_t offset = 0;             // byte offset of the node's first character
    uint32_t length = 0;             // bytes of source text the node spans
    uint32_t line = 0;               // 1-based
    uint32_t col = 0;                // 1-based, in characters (Source::line_col)

    std::string_view file() const;
    std::string_view text() const;  // the node's source text
};

}  // namespace gavel::lang
