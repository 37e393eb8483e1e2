#include "cli/repl/statement.hpp"

#include <algorithm>
#include <sstream>

#include "cli/repl/lexer.hpp"

namespace gavel::cli::repl {

namespace {

std::string trim(std::string_view s) {
    const char* ws = " \t\r\n";
    auto b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return {};
    auto e = s.find_last_not_of(ws);
    return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> words(const std::string& s) {
    std::istringstream in(s);
    std::vector<std::string> out;
    for (std::string w; in >> w;) out.push_back(std::move(w));
    return out;
}

bool is_literal(const Token& t) {
    return t.kind == TokenKind::Number || t.kind == TokenKind::String ||
           (t.kind == TokenKind::Keyword && (t.text == "true" || t.text == "false" || t.text == "null"));
}

// Commands are recognised by their words, before the text is read as Rego.
// `input` alone is a query (it shows the input); `input FILE` loads a file.
bool as_command(const std::string& text, Statement& out) {
    auto w = words(text);
    if (w.empty()) return false;
    const std::string& head = w[0];
    static const std::vector<std::string> bare = {"help",   "exit",  "show",    "unset-package", "json",
                                                  "pretty", "trace", "metrics", "quit"};
    auto is_path_word = [](const std::string& s) {
        return s.find_first_of("=!<>:;|&+*%()[]{}\"`,") == std::string::npos && s != "in" && s != "with" && s != "as" &&
               s != "-";
    };
    bool command = false;
    if (std::find(bare.begin(), bare.end(), head) != bare.end()) {
        command = w.size() == 1 || (head == "help" && w.size() == 2) || (head == "unset-package" && w.size() == 2);
    } else if (head == "unset" || head == "load" || head == "input") {
        command = w.size() == 2 && is_path_word(w[1]);
    }
    if (!command) return false;
    out.kind = StatementKind::Command;
    out.name = head == "quit" ? "exit" : head;
    out.args.assign(w.begin() + 1, w.end());
    return true;
}

// `name`, `name.a.b`, `name[x]`, `name(x, y)` followed by `:=` at depth 0:
// returns the index of the `:=` token, or 0 when the tokens do not start so.
std::size_t assignment_operator(const std::vector<Token>& t) {
    if (t.empty() || t[0].kind != TokenKind::Name) return 0;
    std::size_t i = 1;
    while (i < t.size()) {
        if (t[i].kind == TokenKind::Dot && i + 1 < t.size() && t[i + 1].kind == TokenKind::Name) {
            i += 2;
        } else if (t[i].kind == TokenKind::Open && t[i].text != "{") {
            int depth = t[i].depth;
            ++i;
            while (i < t.size() && !(t[i].kind == TokenKind::Close && t[i].depth == depth)) ++i;
            if (i == t.size()) return 0;
            ++i;
        } else {
            break;
        }
    }
    if (i < t.size() && t[i].kind == TokenKind::Operator && t[i].text == ":=") return i;
    return 0;
}

}  // namespace

const std::vector<std::string>& command_names() {
    static const std::vector<std::string> names = {"exit",   "help", "input", "json",  "load",         "metrics",
                                                   "pretty", "show", "trace", "unset", "unset-package"};
    return names;
}

bool needs_more_input(std::string_view text) {
    Scan s = scan(text);
    return s.open_brackets > 0 || s.open_string;
}

Continuation continue_statement(Continuation before, std::string_view line) {
    // Only a raw string and brackets outlive a line (strings and comments end with it).
    if (before.open_string) {
        auto close = line.find('`');
        if (close == std::string_view::npos) return before;
        line.remove_prefix(close + 1);
    }
    Scan s = scan(line, before.open_brackets);
    return {s.open_brackets, s.open_string};
}

Statement classify(std::string_view raw) {
    Statement out;
    out.text = trim(raw);
    Scan s = scan(out.text);
    // Blank lines separate nothing; a statement of only comments is empty.
    std::vector<Token> tokens;
    for (const auto& t : s.tokens)
        if (t.kind != TokenKind::Newline || t.depth > 0) tokens.push_back(t);
    while (!tokens.empty() && tokens.back().kind == TokenKind::Newline) tokens.pop_back();
    if (tokens.empty()) {
        out.kind = StatementKind::Empty;
        return out;
    }
    if (as_command(out.text, out)) return out;

    const Token& first = tokens.front();
    if (first.kind == TokenKind::Keyword && first.text == "package") {
        out.kind = StatementKind::Package;
        out.name = trim(std::string_view(out.text).substr(first.text.size()));
        return out;
    }
    if (first.kind == TokenKind::Keyword && first.text == "import") {
        out.kind = StatementKind::Import;
        return out;
    }
    auto rule_name = [&](std::size_t from) {
        for (std::size_t i = from; i < tokens.size(); ++i)
            if (tokens[i].kind == TokenKind::Name) return std::string(tokens[i].text);
        return std::string();
    };
    if (first.kind == TokenKind::Keyword && first.text == "default") {
        out.kind = StatementKind::Rule;
        out.name = rule_name(1);
        return out;
    }
    // Several expressions (`a; b` or on separate lines) make a query.
    std::vector<Token> top;
    for (const auto& t : s.tokens)
        if (t.depth == 0) top.push_back(t);
    bool several = false;
    for (std::size_t i = 0; i < top.size(); ++i)
        if (top[i].kind == TokenKind::Semicolon || (top[i].kind == TokenKind::Newline && i + 1 < top.size()))
            several = true;

    bool every_seen = false;
    for (std::size_t i = 0; i < top.size(); ++i) {
        const Token& t = top[i];
        if (t.kind == TokenKind::Keyword && (t.text == "if" || t.text == "contains")) {
            out.kind = StatementKind::Rule;
            out.name = rule_name(0);
            return out;
        }
        if (t.kind == TokenKind::Keyword && t.text == "every") every_seen = true;
        // A body right after a head (`p { ... }`, `p[x] { ... }`, `f(x) = y { ... }`) is a v0 rule;
        // in a query a `{` only follows an operator, a comma or a keyword.
        if (t.kind == TokenKind::Open && t.text == "{" && i > 0 && !every_seen && !several) {
            const Token& prev = top[i - 1];
            if (prev.kind == TokenKind::Name || prev.kind == TokenKind::Close || is_literal(prev)) {
                out.kind = StatementKind::Rule;
                out.name = rule_name(0);
                return out;
            }
        }
    }
    if (!several && assignment_operator(tokens) > 0) {
        out.kind = StatementKind::Assignment;
        out.name = std::string(first.text);
        return out;
    }
    out.kind = StatementKind::Query;
    return out;
}

}  // namespace gavel::cli::repl
