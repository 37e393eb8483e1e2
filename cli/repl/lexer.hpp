#pragma once
// A small Rego token scanner for the REPL. It knows just enough of the lexical
// syntax (strings, raw strings, comments, numbers, names, brackets, operators)
// to decide whether a statement is complete, what kind of statement it is, and
// where names stand — the real parsing is the engine's job.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::cli::repl {

enum class TokenKind { Name, Keyword, Number, String, Open, Close, Operator, Comma, Semicolon, Dot, Newline };

struct Token {
    TokenKind kind;
    std::string_view text;
    std::size_t offset;  // byte offset in the scanned text
    int depth;           // bracket depth before the token (Close tokens: after closing)
};

struct Scan {
    std::vector<Token> tokens;  // comments and blanks are skipped; newlines are kept
    int open_brackets = 0;      // > 0: the text ends inside ( [ {
    bool open_string = false;   // the text ends inside a raw string (`...)
};

// `depth`: the brackets already open before `text` (a statement's next line).
Scan scan(std::string_view text, int depth = 0);

bool is_keyword(std::string_view name);

}  // namespace gavel::cli::repl
