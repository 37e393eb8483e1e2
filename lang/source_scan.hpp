#pragma once
// A quick lexical pass over a module before the grammar runs: it finds the
// comments (kept on the Module, and the source of METADATA annotations) and
// refuses nesting deeper than the limit, so the recursive grammar can never
// exhaust the stack. It also finds bytes OPA's scanner refuses.

#include <vector>

#include "lang/ast.hpp"
#include "lang/parse_state.hpp"

namespace gavel::lang {

struct SourceScan {
    std::vector<Comment> comments;
    const char* too_deep = nullptr;  // the bracket that went past the nesting limit
    // Where the first token holding a byte that is not UTF-8 (or a NUL) starts:
    // OPA's scanner refuses both ("illegal utf-8 character", "illegal null character").
    const char* illegal = nullptr;
    const char* illegal_reason = nullptr;
};

SourceScan scan_source(const ParseState& st, std::size_t max_nesting);

}  // namespace gavel::lang
