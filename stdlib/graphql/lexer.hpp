#pragma once
// GraphQL lexer (spec October 2021, section 2.1) with gqlparser's token
// names and error texts, since OPA surfaces those messages verbatim.

#include <optional>
#include <string>
#include <string_view>

#include "stdlib/graphql/ast.hpp"

namespace gavel::stdlib::graphql {

enum class TokenKind {
    Invalid,
    Eof,
    Bang,
    Dollar,
    Amp,
    ParenL,
    ParenR,
    Spread,
    Colon,
    Equals,
    At,
    BracketL,
    BracketR,
    BraceL,
    BraceR,
    Pipe,
    Name,
    Int,
    Float,
    String,
    BlockString,
};

// "<EOF>", "{", "Name" ...: how parse errors spell a token kind.
std::string_view kind_text(TokenKind k);

struct Token {
    TokenKind kind = TokenKind::Invalid;
    std::string value;  // names, numbers, decoded strings; empty for punctuators
    Position pos;

    // `Name "foo"` or `{`: how "Unexpected ..." messages spell a token.
    std::string describe() const;
};

class Lexer {
public:
    explicit Lexer(std::string_view input) : in_(input) {}

    // The next token. A malformed token comes back as an Invalid token whose
    // error is in `error` (the parser decides whether that message surfaces).
    Token next(std::optional<Error>& error);

private:
    void skip_ignored();
    void advance_byte() { ++end_, ++end_runes_; }
    void advance_rune();  // one UTF-8 sequence (or one stray byte)
    void newline() { ++line_, line_start_runes_ = end_runes_; }
    Token make(TokenKind kind, std::string value) const;
    Token fail(std::optional<Error>& error, std::string message) const;
    std::string describe_next() const;

    Token read_number(std::optional<Error>& error);
    Token read_string(std::optional<Error>& error);
    Token read_block_string(std::optional<Error>& error);
    Token read_name();

    std::string_view in_;
    std::size_t start_ = 0, end_ = 0;       // bytes
    long start_runes_ = 0, end_runes_ = 0;  // runes
    int line_ = 1;
    long line_start_runes_ = 0;
};

// The spec's BlockStringValue(): common indentation and blank edge lines removed.
std::string block_string_value(std::string_view raw);

}  // namespace gavel::stdlib::graphql
