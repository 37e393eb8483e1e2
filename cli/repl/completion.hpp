#pragma once
// Tab completion at the REPL prompt: `input.` and `data.` paths (keys of the
// input document, of the base data, and packages and rules of the loaded
// modules), rule names of the current package, builtin names and commands.

#include <string>
#include <string_view>
#include <vector>

namespace gavel::cli::repl {

class Session;

// Every word that completes `word` (the text from the last separator to the
// cursor), sorted, without duplicates.
std::vector<std::string> complete(const Session& session, std::string_view word, bool at_line_start);

}  // namespace gavel::cli::repl
