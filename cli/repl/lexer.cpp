#include "cli/repl/lexer.hpp"

#include <array>
#include <cctype>

namespace gavel::cli::repl {

namespace {

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

bool is_keyword(std::string_view name) {
    static constexpr std::array<std::string_view, 16> keywords = {
        "package", "import", "as",       "default", "not",  "with",  "some", "in",
        "every",   "if",     "contains", "else",    "true", "false", "null", "__never__"};
    for (auto k : keywords)
        if (k == name) return true;
    return false;
}

Scan scan(std::string_view text, int depth) {
    Scan out;
    std::size_t i = 0;
    const std::size_t n = text.size();
    auto push = [&](TokenKind kind, std::size_t start, std::size_t end, int d) {
        out.tokens.push_back({kind, text.substr(start, end - start), start, d});
    };
    while (i < n) {
        char c = text[i];
        if (c == '\n') {
            push(TokenKind::Newline, i, i + 1, depth);
            ++i;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (c == '#') {
            while (i < n && text[i] != '\n') ++i;
        } else if (c == '"') {
            std::size_t start = i++;
            while (i < n && text[i] != '"' && text[i] != '\n') i += text[i] == '\\' ? 2 : 1;
            if (i < n && text[i] == '"') ++i;
            if (i > n) i = n;
            push(TokenKind::String, start, i, depth);
        } else if (c == '`') {
            std::size_t start = i++;
            while (i < n && text[i] != '`') ++i;
            if (i >= n) {
                out.open_string = true;
                i = n;
            } else {
                ++i;
            }
            push(TokenKind::String, start, i, depth);
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            std::size_t start = i;
            while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             ((text[i] == '+' || text[i] == '-') && (text[i - 1] == 'e' || text[i - 1] == 'E'))))
                ++i;
            push(TokenKind::Number, start, i, depth);
        } else if (name_start(c)) {
            std::size_t start = i;
            while (i < n && name_char(text[i])) ++i;
            auto word = text.substr(start, i - start);
            push(is_keyword(word) ? TokenKind::Keyword : TokenKind::Name, start, i, depth);
        } else if (c == '(' || c == '[' || c == '{') {
            push(TokenKind::Open, i, i + 1, depth);
            ++depth;
            ++i;
        } else if (c == ')' || c == ']' || c == '}') {
            if (depth > 0) --depth;
            push(TokenKind::Close, i, i + 1, depth);
            ++i;
        } else if (c == ',') {
            push(TokenKind::Comma, i, i + 1, depth);
            ++i;
        } else if (c == ';') {
            push(TokenKind::Semicolon, i, i + 1, depth);
            ++i;
        } else if (c == '.') {
            push(TokenKind::Dot, i, i + 1, depth);
            ++i;
        } else {
            // Operators: := == != <= >= and single characters.
            std::size_t len = 1;
            if (i + 1 < n) {
                std::string_view two = text.substr(i, 2);
                if (two == ":=" || two == "==" || two == "!=" || two == "<=" || two == ">=") len = 2;
            }
            push(TokenKind::Operator, i, i + len, depth);
            i += len;
        }
    }
    out.open_brackets = depth;
    return out;
}

}  // namespace gavel::cli::repl
