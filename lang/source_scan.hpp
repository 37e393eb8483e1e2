#pragma once
// A quick lexical pass over a module before the grammar runs: it finds the
// comments (kept on the Module, and the source of METADATA annotations) and
// refuses nesting deeper than the limit, so the recursive grammar can never
// exhaust the stack.

#include <vector>

#include "lang/ast.hpp"
#include "lang/parse_state.hpp"

namespace gavel::lang {

struct SourceScan {
    std::vector<Comment> comments;
    const char* too_deep = nullptr;  // the bracket that went past the nesting limit
};

SourceScan scan_source(const ParseState& st, std::size_t max_nesting);

}  // namespace gavel::lang
