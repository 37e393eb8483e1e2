// GraphQL lexer; see lexer.hpp.

#include "stdlib/graphql/lexer.hpp"

#include <fmt/format.h>

#include "lang/go_quote.hpp"
#include "support/utf8.hpp"

#include <vector>

namespace gavel::stdlib::graphql {

std::string_view kind_text(TokenKind k) {
    switch (k) {
        case TokenKind::Invalid: return "<Invalid>";
        case TokenKind::Eof: return "<EOF>";
        case TokenKind::Bang: return "!";
        case TokenKind::Dollar: return "$";
        case TokenKind::Amp: return "&";
        case TokenKind::ParenL: return "(";
        case TokenKind::ParenR: return ")";
        case TokenKind::Spread: return "...";
        case TokenKind::Colon: return ":";
        case TokenKind::Equals: return "=";
        case TokenKind::At: return "@";
        case TokenKind::BracketL: return "[";
        case TokenKind::BracketR: return "]";
        case TokenKind::BraceL: return "{";
        case TokenKind::BraceR: return "}";
        case TokenKind::Pipe: return "|";
        case TokenKind::Name: return "Name";
        case TokenKind::Int: return "Int";
        case TokenKind::Float: return "Float";
        case TokenKind::String: return "String";
        case TokenKind::BlockString: return "BlockString";
    }
    return "<Invalid>";
}

namespace {

bool is_name_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

std::size_t utf8_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead & 0xE0) == 0xC0) return 2;
    if ((lead & 0xF0) == 0xE0) return 3;
    if ((lead & 0xF8) == 0xF0) return 4;
    return 1;
}

}  // namespace

std::string Token::describe() const {
    if (value.empty()) return std::string(kind_text(kind));
    return std::string(kind_text(kind)) + " " + lang::go_quote(value);
}

void Lexer::advance_rune() {
    std::size_t n = utf8_length(static_cast<unsigned char>(in_[end_]));
    if (end_ + n > in_.size()) n = 1;
    for (std::size_t i = 1; i < n; ++i)
        if ((static_cast<unsigned char>(in_[end_ + i]) & 0xC0) != 0x80) n = 1;
    end_ += n;
    ++end_runes_;
}

Token Lexer::make(TokenKind kind, std::string value) const {
    Token t;
    t.kind = kind;
    t.value = std::move(value);
    t.pos = {line_, static_cast<int>(start_runes_ - line_start_runes_ + 1)};
    return t;
}

Token Lexer::fail(std::optional<Error>& error, std::string message) const {
    Token t;
    t.kind = TokenKind::Invalid;
    t.pos = {line_, static_cast<int>(end_runes_ - line_start_runes_ + 1)};
    error = Error{std::move(message), t.pos};
    return t;
}

std::string Lexer::describe_next() const {
    if (end_ < in_.size()) return '"' + std::string(1, in_[end_]) + "\"";
    return "<EOF>";
}

void Lexer::skip_ignored() {
    while (end_ < in_.size()) {
        char c = in_[end_];
        if (c == '\t' || c == ' ' || c == ',') {
            advance_byte();
        } else if (c == '\n') {
            advance_byte();
            newline();
        } else if (c == '\r') {
            advance_byte();
            newline();
            if (end_ < in_.size() && in_[end_] == '\n') advance_byte();
        } else if (c == '\xEF' && end_ + 2 < in_.size() && in_[end_ + 1] == '\xBB' && in_[end_ + 2] == '\xBF') {
            end_ += 3;  // byte order mark: one rune
            ++end_runes_;
        } else if (c == '#') {
            // Comment: source characters up to the line end.
            advance_byte();
            while (end_ < in_.size()) {
                unsigned char d = static_cast<unsigned char>(in_[end_]);
                if (d > 0x1f || d == '\t') advance_rune();
                else break;
            }
        } else {
            return;
        }
    }
}

Token Lexer::next(std::optional<Error>& error) {
    skip_ignored();
    start_ = end_;
    start_runes_ = end_runes_;
    if (end_ >= in_.size()) return make(TokenKind::Eof, {});
    char c = in_[start_];
    advance_byte();
    switch (c) {
        case '!': return make(TokenKind::Bang, {});
        case '$': return make(TokenKind::Dollar, {});
        case '&': return make(TokenKind::Amp, {});
        case '(': return make(TokenKind::ParenL, {});
        case ')': return make(TokenKind::ParenR, {});
        case ':': return make(TokenKind::Colon, {});
        case '=': return make(TokenKind::Equals, {});
        case '@': return make(TokenKind::At, {});
        case '[': return make(TokenKind::BracketL, {});
        case ']': return make(TokenKind::BracketR, {});
        case '{': return make(TokenKind::BraceL, {});
        case '}': return make(TokenKind::BraceR, {});
        case '|': return make(TokenKind::Pipe, {});
        case '.':
            if (in_.substr(start_, 3) == "...") {
                end_ += 2;
                end_runes_ += 2;
                return make(TokenKind::Spread, {});
            }
            break;
        case '"':
            if (in_.substr(start_, 3) == "\"\"\"") return read_block_string(error);
            return read_string(error);
        default:
            if (is_name_start(c)) return read_name();
            if (c == '-' || (c >= '0' && c <= '9')) return read_number(error);
            break;
    }
    --end_;
    --end_runes_;
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && u != '\t' && u != '\n' && u != '\r')
        return fail(error, fmt::format("Cannot contain the invalid character \"\\u{:04d}\"", u));
    if (c == '\'')
        return fail(error, "Unexpected single quote character ('), did you mean to use a double quote (\")?");
    std::size_t n = utf8_length(u);
    return fail(error, fmt::format("Cannot parse the unexpected character \"{}\".", in_.substr(start_, n)));
}

Token Lexer::read_name() {
    while (end_ < in_.size() && is_name_char(in_[end_])) advance_byte();
    return make(TokenKind::Name, std::string(in_.substr(start_, end_ - start_)));
}

Token Lexer::read_number(std::optional<Error>& error) {
    --end_;
    --end_runes_;
    auto accept = [&](char a, char b = 0) {
        if (end_ < in_.size() && (in_[end_] == a || (b && in_[end_] == b))) {
            advance_byte();
            return true;
        }
        return false;
    };
    auto digits = [&] {
        int n = 0;
        while (end_ < in_.size() && in_[end_] >= '0' && in_[end_] <= '9') advance_byte(), ++n;
        return n;
    };
    bool is_float = false;
    accept('-');
    if (accept('0')) {
        if (int n = digits()) {
            end_ -= n;
            end_runes_ -= n;
            return fail(error, "Invalid number, unexpected digit after 0: " + describe_next() + ".");
        }
    } else if (digits() == 0) {
        return fail(error, "Invalid number, expected digit but got: " + describe_next() + ".");
    }
    if (accept('.')) {
        is_float = true;
        if (digits() == 0) return fail(error, "Invalid number, expected digit but got: " + describe_next() + ".");
    }
    if (accept('e', 'E')) {
        is_float = true;
        accept('-', '+');
        if (digits() == 0) return fail(error, "Invalid number, expected digit but got: " + describe_next() + ".");
    }
    return make(is_float ? TokenKind::Float : TokenKind::Int, std::string(in_.substr(start_, end_ - start_)));
}

Token Lexer::read_string(std::optional<Error>& error) {
    ++start_;  // the value excludes the quotes
    ++start_runes_;
    std::string buf;
    while (end_ < in_.size()) {
        unsigned char c = static_cast<unsigned char>(in_[end_]);
        if (c == '\n' || c == '\r') break;
        if (c < 0x20 && c != '\t')
            return fail(error, fmt::format("Invalid character within String: \"\\u{:04d}\".", c));
        if (c == '"') {
            Token t = make(TokenKind::String, std::move(buf));
            advance_byte();
            return t;
        }
        if (c == '\\') {
            if (end_ + 1 >= in_.size()) {
                advance_byte();
                return fail(error, "Invalid character escape sequence.");
            }
            char esc = in_[end_ + 1];
            if (esc == 'u') {
                if (end_ + 6 >= in_.size()) {
                    advance_byte();
                    return fail(error, fmt::format("Invalid character escape sequence: \\{}.", in_.substr(end_)));
                }
                unsigned cp = 0;
                for (std::size_t i = end_ + 2; i < end_ + 6; ++i) {
                    char h = in_[i];
                    cp <<= 4;
                    if (h >= '0' && h <= '9') cp |= h - '0';
                    else if (h >= 'a' && h <= 'f') cp |= h - 'a' + 10;
                    else if (h >= 'A' && h <= 'F') cp |= h - 'A' + 10;
                    else {
                        advance_byte();
                        return fail(error,
                                    fmt::format("Invalid character escape sequence: \\{}.", in_.substr(end_, 5)));
                    }
                }
                support::utf8::append_rune(buf, cp);  // a lone surrogate becomes U+FFFD, as Go writes it
                end_ += 6;
                end_runes_ += 6;
                continue;
            }
            switch (esc) {
                case '"':
                case '/':
                case '\\': buf += esc; break;
                case 'b': buf += '\b'; break;
                case 'f': buf += '\f'; break;
                case 'n': buf += '\n'; break;
                case 'r': buf += '\r'; break;
                case 't': buf += '\t'; break;
                default:
                    advance_byte();
                    return fail(error, fmt::format("Invalid character escape sequence: \\{}.", esc));
            }
            end_ += 2;
            end_runes_ += 2;
            continue;
        }
        std::size_t before = end_;
        advance_rune();
        buf.append(in_.substr(before, end_ - before));
    }
    return fail(error, "Unterminated string.");
}

Token Lexer::read_block_string(std::optional<Error>& error) {
    start_ += 3;
    start_runes_ += 3;
    end_ += 2;
    end_runes_ += 2;
    std::string buf;
    while (end_ < in_.size()) {
        unsigned char c = static_cast<unsigned char>(in_[end_]);
        if (c == '"' && in_.substr(end_, 3) == "\"\"\"") {
            Token t = make(TokenKind::BlockString, block_string_value(buf));
            end_ += 3;
            end_runes_ += 3;
            return t;
        }
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return fail(error, fmt::format("Invalid character within String: \"\\u{:04d}\".", c));
        if (c == '\\' && in_.substr(end_, 4) == "\\\"\"\"") {
            buf += "\"\"\"";
            end_ += 4;
            end_runes_ += 4;
        } else if (c == '\r') {
            if (end_ + 1 < in_.size() && in_[end_ + 1] == '\n') advance_byte();
            buf += '\n';
            advance_byte();
            newline();
        } else {
            std::size_t before = end_;
            advance_rune();
            buf.append(in_.substr(before, end_ - before));
            if (c == '\n') newline();
        }
    }
    return fail(error, "Unterminated string.");
}

std::string block_string_value(std::string_view raw) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0;;) {
        auto nl = raw.find('\n', start);
        lines.push_back(raw.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }
    constexpr std::size_t kBlank = std::string_view::npos;
    auto leading_ws = [](std::string_view line) {
        for (std::size_t i = 0; i < line.size(); ++i)
            if (line[i] != ' ' && line[i] != '\t') return i;
        return kBlank;  // all-whitespace lines do not count
    };
    std::size_t common = kBlank;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        auto indent = leading_ws(lines[i]);
        if (indent != kBlank && indent < common) common = indent;
    }
    if (common != kBlank)
        for (std::size_t i = 1; i < lines.size(); ++i)
            lines[i] = lines[i].size() < common ? std::string_view{} : lines[i].substr(common);
    std::size_t first = 0, last = lines.size();
    while (first < last && leading_ws(lines[first]) == kBlank) ++first;
    while (first < last && leading_ws(lines[last - 1]) == kBlank) --last;
    std::string out;
    for (std::size_t i = first; i < last; ++i) {
        if (i > first) out += '\n';
        out += lines[i];
    }
    return out;
}

}  // namespace gavel::stdlib::graphql
