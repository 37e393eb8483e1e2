#include "runtime/parse_result.hpp"

namespace gavel::runtime {

void locate(std::string_view text, std::size_t offset, std::size_t& line, std::size_t& column) noexcept {
    if (offset > text.size()) offset = text.size();
    line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    column = offset - line_start + 1;
}

ParseError make_parse_error(std::string_view text, std::size_t offset, std::string_view what) {
    ParseError e;
    e.offset = offset;
    locate(text, offset, e.line, e.column);
    e.message = std::string(what) + " at line " + std::to_string(e.line) + ", column " + std::to_string(e.column) +
                " (byte offset " + std::to_string(offset) + ")";
    return e;
}

}  // namespace gavel::runtime
