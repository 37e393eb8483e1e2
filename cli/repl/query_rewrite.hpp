#pragma once
// Queries at the REPL are read inside its current package, as OPA's REPL does:
// a name that is a rule of that package (or an import alias) means that rule.
// The engine prepares queries without a package, so the REPL spells such names
// out (`i` -> `data.repl.i`) and keeps a map back to what the user typed, for
// expression texts and error columns.

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::cli::repl {

class RewrittenQuery {
public:
    std::string text;  // what the engine is given

    // The original text between two (1-based line/col) positions of `text`,
    // e.g. an expression's source; `fallback` when the span cannot be mapped.
    std::string original_span(std::string_view original, uint32_t line, uint32_t col, std::size_t length,
                              const std::string& fallback) const;
    // A (1-based) position in `text` as a position in the original.
    void map_position(std::string_view original, uint32_t& line, uint32_t& col) const;

    struct Edit {
        std::size_t original_offset, original_length, new_offset, new_length;
    };
    std::vector<Edit> edits;

private:
    std::size_t to_original(std::size_t new_offset) const;
};

// Replaces every free use of a name in `names` (name -> replacement text).
// Names the query declares itself (`some x`, `x := ...`, `every k, v in`) stay local.
RewrittenQuery rewrite_query(std::string_view query, const std::map<std::string, std::string>& names);

// Byte offset of a 1-based line/col in text (npos when out of range).
std::size_t offset_of(std::string_view text, uint32_t line, uint32_t col);

}  // namespace gavel::cli::repl
