#pragma once
// OPA's scanner, token by token as OPA 1.7.1 reads Rego source: what the
// error-list parser (lang/opa_error_list.hpp) walks. gavel's own grammar reads
// the text itself; this one exists so that the list of syntax errors follows
// OPA's control flow exactly, scanner errors included ("non-terminated string",
// "illegal number format", ...), which OPA records and then reads as an
// illegal token.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gavel::lang::opa {

enum class Tok : uint8_t {
    Illegal,
    Eof,
    Whitespace,
    Ident,
    Comment,
    Package,
    Import,
    As,
    Default,
    Else,
    Not,
    Some,
    With,
    Null,
    True,
    False,
    Number,
    String,
    LBrack,
    RBrack,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Colon,
    Add,
    Sub,
    Mul,
    Quo,
    Rem,
    And,
    Or,
    Unify,
    Equal,
    Assign,
    In,
    Neq,
    Gt,
    Lt,
    Gte,
    Lte,
    Dot,
    Semicolon,
    Every,
    Contains,
    If,
};

// How OPA's messages name a token ("identifier", "[", "assign", "eof", ...).
std::string_view token_name(Tok tok);
// Whether OPA's messages call the token a keyword rather than a token.
bool is_keyword(Tok tok);

// Where a token starts (and ends), as OPA counts: rows from 1, columns in code points from 1.
struct Position {
    int offset = 0;
    int end = 0;
    int row = 1;
    int col = 0;
};

struct Scanned {
    Tok tok = Tok::Illegal;
    Position pos;
    std::string_view lit;
    std::vector<std::string_view> errors;  // the scanner's complaints about this token
};

// A value type: copying it saves the scan position (OPA's parser saves and restores it).
class Scanner {
public:
    explicit Scanner(std::string_view text);

    Scanned scan();

    // Which of the keywords that came after Rego's first version the scanner knows: all of them
    // in Rego v1; in v0 those imported (`import future.keywords.in`); none in an import's path.
    enum FutureKeyword : uint8_t { In = 1, Every = 2, Contains = 4, If = 8, AllFuture = 15 };
    uint8_t future_keywords = AllFuture;

    std::string_view text() const { return text_; }

private:
    void next();
    void error(std::string_view reason) { errors_.push_back(reason); }
    std::string_view scan_identifier();
    std::string_view scan_number();
    std::string_view scan_string();
    std::string_view scan_raw_string();
    void scan_comment();
    Tok keyword(std::string_view word) const;

    std::string_view text_;
    std::vector<std::string_view> errors_;
    int offset_ = 0;
    int row_ = 1;
    int col_ = 0;
    int width_ = 0;
    int32_t curr_ = -1;
};

}  // namespace gavel::lang::opa
