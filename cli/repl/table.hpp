#pragma once
// The tables OPA's REPL prints (drawn there by olekukonko/tablewriter with
// its defaults): +---+ borders, headers centred, cells left-aligned, and
// cells wider than 30 columns wrapped at spaces into several lines.
//
//   +---+------------------------------------------+
//   | j | input.request.object.spec.containers[j]  |
//   +---+------------------------------------------+
//   | 0 | {"image":"nginx","name":"nginx"}         |
//   +---+------------------------------------------+

#include <string>
#include <vector>

namespace gavel::cli::repl {

// An empty header draws the rows alone (OPA's coverage summary).
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace gavel::cli::repl
