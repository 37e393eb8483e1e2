#pragma once
// What a line typed at the REPL is: a command, a package or import, a rule
// definition, an assignment (which the REPL keeps as a rule, as OPA does), or
// a query. Decided on tokens, before anything is parsed for real.

#include <string>
#include <string_view>
#include <vector>

namespace gavel::cli::repl {

enum class StatementKind { Empty, Command, Package, Import, Rule, Assignment, Query };

struct Statement {
    StatementKind kind = StatementKind::Empty;
    std::string text;               // the statement, trimmed
    std::string name;               // Rule/Assignment: the rule's name; Command: the command; Package: the path
    std::vector<std::string> args;  // Command: its arguments
};

Statement classify(std::string_view text);

// True while the text cannot be complete yet: an open ( [ { or raw string.
bool needs_more_input(std::string_view text);

// The same, line by line: where a statement stands after each line, each line
// scanned once (scanning the whole statement again at each line of a piped
// `[[[[...` would take time quadratic in its length).
struct Continuation {
    int open_brackets = 0;
    bool open_string = false;  // inside a raw string
    bool needs_more() const { return open_brackets > 0 || open_string; }
};
Continuation continue_statement(Continuation before, std::string_view line);

// The names of the REPL's commands, for help and completion.
const std::vector<std::string>& command_names();

}  // namespace gavel::cli::repl
