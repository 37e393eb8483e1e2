#include "stdlib/text_template.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "stdlib/go_format.hpp"
#include "stdlib/go_url.hpp"
#include "stdlib/unicode_text.hpp"
#include "support/html_escape.hpp"
#include "support/utf8.hpp"

namespace gavel::stdlib {

namespace {

using runtime::Value;

// Go's template.JSEscapeString: quotes, the backslash, `<`, `>`, `&`, `=` and ASCII controls
// escaped; other runes as they are, unless Go does not print them (`\uXXXX`).
std::string js_escape(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            switch (c) {
                case '\\': out += "\\\\"; break;
                case '\'': out += "\\'"; break;
                case '"': out += "\\\""; break;
                case '<': out += "\\u003C"; break;
                case '>': out += "\\u003E"; break;
                case '&': out += "\\u0026"; break;
                case '=': out += "\\u003D"; break;
                default:
                    if (c < ' ') out += fmt::format("\\u00{:02X}", c);
                    else out += static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // An invalid byte decodes as U+FFFD, which Go prints: the byte is kept.
        const support::utf8::Rune r = support::utf8::decode_rune(s, i);
        if (text::is_print(r.rune)) out.append(s.substr(i, r.width));
        else out += fmt::format("\\u{:04X}", static_cast<std::uint32_t>(r.rune));
        i += r.width;
    }
    return out;
}

// Bounds on what one template may do with user input.
constexpr std::size_t kMaxOutput = 16u << 20;
constexpr std::size_t kMaxSteps = 10'000'000;
constexpr int kMaxDepth = 100;

struct TemplateError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Thrown when the evaluation's budget says stop.
struct TemplateStopped {};

[[noreturn]] void fail(int line, const std::string& msg) {
    throw TemplateError(fmt::format("template: template:{}: {}", line, msg));
}

// An execution error as Go reports it: where, and the node being evaluated (as written).
[[noreturn]] void fail_at(int line, int col, const std::string& node, const std::string& msg) {
    throw TemplateError(
        fmt::format("template: template:{}:{}: executing \"template\" at <{}>: {}", line, col, node, msg));
}

// ---- lexing -------------------------------------------------------------------

struct Token {
    enum Kind { Dot, Field, Var, Ident, String, Number, LParen, RParen, Pipe, Declare, Assign, Comma } kind;
    std::string text;                // identifier, string value, number text, variable name
    std::vector<std::string> chain;  // field names (Field, Var, and after RParen)
    bool adjacent = false;           // no space before (a field chain after ')')
    std::size_t pos = 0;             // where Go's parser places the node: offset in the action
    std::string src;                 // the token as written
};

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> read_chain(std::string_view s, std::size_t& i) {
    std::vector<std::string> chain;
    while (i < s.size() && s[i] == '.' && i + 1 < s.size() && is_ident_char(s[i + 1])) {
        std::size_t j = i + 1;
        while (j < s.size() && is_ident_char(s[j])) ++j;
        chain.emplace_back(s.substr(i + 1, j - i - 1));
        i = j;
    }
    return chain;
}

std::vector<Token> lex_action(std::string_view s, int line) {
    std::vector<Token> out;
    std::size_t i = 0;
    bool space_before = true;
    while (i < s.size()) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
            space_before = true;
            continue;
        }
        Token t{Token::Dot, {}, {}, !space_before, i, {}};
        const std::size_t start = i;
        space_before = false;
        if (c == '.') {
            auto chain = read_chain(s, i);
            if (chain.empty()) {
                ++i;
                t.kind = Token::Dot;
            } else {
                t.kind = Token::Field;
                // Go's parser places a chain `.a.b` at its second field.
                if (chain.size() > 1) t.pos += chain[0].size() + 1;
                t.chain = std::move(chain);
            }
        } else if (c == '$') {
            std::size_t j = i + 1;
            while (j < s.size() && is_ident_char(s[j])) ++j;
            t.kind = Token::Var;
            t.text = std::string(s.substr(i, j - i));
            i = j;
            if (i < s.size() && s[i] == '.') t.pos = i;  // `$v.a`: at its first field
            t.chain = read_chain(s, i);
        } else if (c == '"') {
            std::size_t j = i + 1;
            std::string v;
            while (j < s.size() && s[j] != '"') {
                if (s[j] == '\\' && j + 1 < s.size()) {
                    char e = s[++j];
                    switch (e) {
                        case 'n': v += '\n'; break;
                        case 't': v += '\t'; break;
                        case 'r': v += '\r'; break;
                        case '\\': v += '\\'; break;
                        case '"': v += '"'; break;
                        default: fail(line, "unsupported escape in string");
                    }
                    ++j;
                    continue;
                }
                v += s[j++];
            }
            if (j >= s.size()) fail(line, "unterminated quoted string");
            t.kind = Token::String;
            t.text = std::move(v);
            i = j + 1;
        } else if (c == '`') {
            auto j = s.find('`', i + 1);
            if (j == std::string_view::npos) fail(line, "unterminated raw quoted string");
            t.kind = Token::String;
            t.text = std::string(s.substr(i + 1, j - i - 1));
            i = j + 1;
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   ((c == '-' || c == '+') && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            std::size_t j = i + 1;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
            t.kind = Token::Number;
            t.text = std::string(s.substr(i, j - i));
            i = j;
        } else if (is_ident_char(c)) {
            std::size_t j = i;
            while (j < s.size() && is_ident_char(s[j])) ++j;
            t.kind = Token::Ident;
            t.text = std::string(s.substr(i, j - i));
            i = j;
        } else if (c == '(') {
            t.kind = Token::LParen;
            ++i;
        } else if (c == ')') {
            t.kind = Token::RParen;
            ++i;
        } else if (c == '|') {
            t.kind = Token::Pipe;
            ++i;
        } else if (c == ',') {
            t.kind = Token::Comma;
            ++i;
        } else if (c == ':' && i + 1 < s.size() && s[i + 1] == '=') {
            t.kind = Token::Declare;
            i += 2;
        } else if (c == '=') {
            t.kind = Token::Assign;
            ++i;
        } else {
            fail(line, fmt::format("unexpected \"{}\" in command", c));
        }
        t.src = std::string(s.substr(start, i - start));
        out.push_back(std::move(t));
    }
    return out;
}

// ---- syntax tree ----------------------------------------------------------------

struct Pipeline;

struct Term {
    enum Kind { Dot, Field, Var, String, Int, Bool, Nil, Func, Sub } kind = Dot;
    std::string text;
    std::vector<std::string> chain;
    int line = 1, col = 0;  // Go's position of the node, for "line:col" in execution errors
    std::string src;        // as written, for "at <...>" in execution errors
    std::int64_t i = 0;
    bool b = false;
    std::shared_ptr<Pipeline> sub;
};

struct Command {
    std::vector<Term> args;
    std::string src() const {
        std::string out;
        for (const auto& a : args) out += (out.empty() ? "" : " ") + a.src;
        return out;
    }
};

struct Pipeline {
    std::vector<std::string> vars;
    bool declare = false;
    std::vector<Command> cmds;
    int line = 1;
    std::string src() const {
        std::string out;
        for (const auto& v : vars) out += (out.empty() ? "" : ", ") + v;
        if (!vars.empty()) out += declare ? " := " : " = ";
        for (std::size_t i = 0; i < cmds.size(); ++i) out += (i ? " | " : "") + cmds[i].src();
        return out;
    }
};

struct Node;
using NodeList = std::vector<std::unique_ptr<Node>>;

struct Node {
    enum Kind { Text, Action, If, Range, With } kind = Text;
    std::string text;
    Pipeline pipe;
    NodeList list, else_list;
};

// A template is text and actions; trimming markers are applied here.
struct Item {
    bool action = false;
    std::string text;
    int line = 1;
    int col = 0;  // byte offset of an action's text from the start of its line
};

std::vector<Item> split_items(std::string_view t) {
    std::vector<Item> items;
    std::size_t i = 0;
    int line = 1;
    bool trim_next = false;
    auto count_lines = [&](std::string_view s) {
        for (char c : s) line += c == '\n';
    };
    auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    while (i <= t.size()) {
        auto open = t.find("{{", i);
        std::string_view text = t.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
        bool trim_left =
            open != std::string_view::npos && open + 3 < t.size() && t[open + 2] == '-' && is_space(t[open + 3]);
        std::string_view kept = text;
        if (trim_next)
            while (!kept.empty() && is_space(kept.front())) kept.remove_prefix(1);
        if (trim_left)
            while (!kept.empty() && is_space(kept.back())) kept.remove_suffix(1);
        if (!kept.empty()) items.push_back({false, std::string(kept), line});
        count_lines(text);
        if (open == std::string_view::npos) break;
        std::size_t start = open + (trim_left ? 3 : 2);
        // Comments may contain "}}".
        std::size_t body_start = start;
        while (body_start < t.size() && is_space(t[body_start])) ++body_start;
        std::size_t close;
        if (t.substr(body_start).starts_with("/*")) {
            auto end_comment = t.find("*/", body_start + 2);
            if (end_comment == std::string_view::npos) fail(line, "unclosed comment");
            close = t.find("}}", end_comment + 2);
        } else {
            close = t.find("}}", start);
        }
        if (close == std::string_view::npos) fail(line, "unclosed action");
        std::size_t body_end = close;
        trim_next = false;
        if (close >= 2 && t[close - 1] == '-' && is_space(t[close - 2]) && close - 1 > start) {
            trim_next = true;
            body_end = close - 1;
        }
        std::string_view body = t.substr(start, body_end - start);
        std::string_view trimmed = body;
        while (!trimmed.empty() && is_space(trimmed.front())) trimmed.remove_prefix(1);
        if (!trimmed.starts_with("/*")) {
            auto newline = t.rfind('\n', start == 0 ? 0 : start - 1);
            int col =
                static_cast<int>(newline == std::string_view::npos || newline >= start ? start : start - newline - 1);
            items.push_back({true, std::string(body), line, col});
        }
        count_lines(t.substr(open, close + 2 - open));
        i = close + 2;
    }
    return items;
}

class Parser {
public:
    explicit Parser(std::vector<Item> items) : items_(std::move(items)) {}

    NodeList parse() {
        std::string stop;
        NodeList list = parse_list(stop, 0);
        if (!stop.empty()) fail(line_, fmt::format("unexpected {{{{{}}}}}", stop));
        return list;
    }

private:
    std::vector<Item> items_;
    std::size_t pos_ = 0;
    int line_ = 1;
    std::vector<Token> rest_;     // tokens after "else" in "{{else if ...}}"
    const Item* item_ = nullptr;  // the action being parsed

    // Line and column (Go's ErrorContext: bytes since the line's start) of a token.
    void place(Term& term, const Token& t) const {
        if (!item_) return;
        std::string_view before = std::string_view(item_->text).substr(0, t.pos);
        auto newline = before.rfind('\n');
        term.line = item_->line + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
        term.col = static_cast<int>(newline == std::string_view::npos ? item_->col + t.pos : t.pos - newline - 1);
    }

    // Parses until {{end}} / {{else ...}} (reported in `stop`) or the end.
    NodeList parse_list(std::string& stop, int depth) {
        if (depth > kMaxDepth) fail(line_, "template nested too deeply");
        NodeList list;
        stop.clear();
        while (pos_ < items_.size()) {
            const Item& item = items_[pos_++];
            line_ = item.line;
            if (!item.action) {
                auto n = std::make_unique<Node>();
                n->kind = Node::Text;
                n->text = item.text;
                list.push_back(std::move(n));
                continue;
            }
            item_ = &item;
            auto toks = lex_action(item.text, item.line);
            if (toks.empty()) fail(line_, "missing value for command");
            if (toks[0].kind == Token::Ident) {
                const std::string& kw = toks[0].text;
                if (kw == "end" || kw == "else") {
                    stop = kw;
                    rest_.assign(toks.begin() + 1, toks.end());
                    return list;
                }
                if (kw == "if" || kw == "range" || kw == "with") {
                    std::vector<Token> pipe_toks(toks.begin() + 1, toks.end());
                    list.push_back(parse_control(kw, pipe_toks, depth));
                    continue;
                }
                if (kw == "define" || kw == "template" || kw == "block" || kw == "break" || kw == "continue")
                    fail(line_, fmt::format("{{{{{}}}}} is not supported by strings.render_template", kw));
            }
            auto n = std::make_unique<Node>();
            n->kind = Node::Action;
            n->pipe = parse_pipeline(toks, true);
            list.push_back(std::move(n));
        }
        return list;
    }

    std::unique_ptr<Node> parse_control(const std::string& kw, const std::vector<Token>& toks, int depth) {
        auto n = std::make_unique<Node>();
        n->kind = kw == "if" ? Node::If : kw == "range" ? Node::Range : Node::With;
        n->pipe = parse_pipeline(toks, true);
        std::string stop;
        n->list = parse_list(stop, depth + 1);
        if (stop.empty()) fail(line_, "unexpected EOF");
        if (stop == "else") {
            if (!rest_.empty() && rest_[0].kind == Token::Ident && (rest_[0].text == "if" || rest_[0].text == "with") &&
                n->kind != Node::Range) {
                // {{else if p}} is {{else}}{{if p}}...{{end}}{{end}} sharing one end.
                std::vector<Token> inner(rest_.begin() + 1, rest_.end());
                n->else_list.push_back(parse_control(rest_[0].text, inner, depth + 1));
                return n;
            }
            if (!rest_.empty()) fail(line_, "unexpected tokens after else");
            n->else_list = parse_list(stop, depth + 1);
            if (stop != "end") fail(line_, "expected end; found " + (stop.empty() ? std::string("EOF") : stop));
        }
        return n;
    }

    Pipeline parse_pipeline(const std::vector<Token>& toks, bool allow_decl) {
        Pipeline p;
        p.line = line_;
        std::size_t i = 0;
        if (allow_decl) {
            // $x :=  /  $i, $x :=  /  $x =
            std::size_t j = 0;
            std::vector<std::string> vars;
            while (j < toks.size() && toks[j].kind == Token::Var && toks[j].chain.empty()) {
                vars.push_back(toks[j].text);
                ++j;
                if (j < toks.size() && toks[j].kind == Token::Comma) {
                    ++j;
                    continue;
                }
                break;
            }
            if (!vars.empty() && j < toks.size() && (toks[j].kind == Token::Declare || toks[j].kind == Token::Assign) &&
                vars.size() <= 2) {
                p.vars = vars;
                p.declare = toks[j].kind == Token::Declare;
                i = j + 1;
            }
        }
        Command cmd;
        while (i < toks.size()) {
            const Token& t = toks[i];
            if (t.kind == Token::Pipe) {
                if (cmd.args.empty()) fail(line_, "missing command");
                p.cmds.push_back(std::move(cmd));
                cmd = Command{};
                ++i;
                continue;
            }
            cmd.args.push_back(parse_term(toks, i));
        }
        if (cmd.args.empty()) fail(line_, "missing value for command");
        p.cmds.push_back(std::move(cmd));
        return p;
    }

    Term parse_term(const std::vector<Token>& toks, std::size_t& i) {
        const Token& t = toks[i++];
        Term term;
        place(term, t);
        term.src = t.src;
        switch (t.kind) {
            case Token::Dot: term.kind = Term::Dot; break;
            case Token::Field:
                term.kind = Term::Field;
                term.chain = t.chain;
                break;
            case Token::Var:
                term.kind = Term::Var;
                term.text = t.text;
                term.chain = t.chain;
                break;
            case Token::String:
                term.kind = Term::String;
                term.text = t.text;
                break;
            case Token::Number:
                term.kind = Term::Int;
                try {
                    term.i = std::stoll(t.text);
                } catch (...) {
                    fail(line_, "number out of range: " + t.text);
                }
                break;
            case Token::Ident:
                if (t.text == "true" || t.text == "false") {
                    term.kind = Term::Bool;
                    term.b = t.text == "true";
                } else if (t.text == "nil") {
                    term.kind = Term::Nil;
                } else {
                    // Go's parser knows its functions: an unknown one fails the whole template,
                    // run or not (`{{if false}}{{f}}{{end}}`).
                    static constexpr std::string_view go_functions[] = {
                        "and",    "call",    "html",     "index", "slice", "js", "len", "not", "or", "print",
                        "printf", "println", "urlquery", "eq",    "ge",    "gt", "le",  "lt",  "ne"};
                    if (std::find(std::begin(go_functions), std::end(go_functions), t.text) == std::end(go_functions))
                        fail(line_, fmt::format("function \"{}\" not defined", t.text));
                    term.kind = Term::Func;
                    term.text = t.text;
                }
                break;
            case Token::LParen: {
                std::size_t depth = 1, j = i;
                while (j < toks.size() && depth > 0) {
                    if (toks[j].kind == Token::LParen) ++depth;
                    else if (toks[j].kind == Token::RParen) --depth;
                    if (depth > 0) ++j;
                }
                if (j >= toks.size()) fail(line_, "unclosed left paren");
                std::vector<Token> inner(toks.begin() + static_cast<std::ptrdiff_t>(i),
                                         toks.begin() + static_cast<std::ptrdiff_t>(j));
                term.kind = Term::Sub;
                term.sub = std::make_shared<Pipeline>(parse_pipeline(inner, false));
                term.src = "(" + term.sub->src() + ")";
                i = j + 1;
                if (i < toks.size() && toks[i].kind == Token::Field && toks[i].adjacent) {
                    term.src += toks[i].src;
                    term.chain = toks[i++].chain;
                }
                break;
            }
            default: fail(line_, "unexpected token in operand");
        }
        return term;
    }
};

// ---- execution --------------------------------------------------------------------

// A value as Go's template engine sees it: JSON data (null is Go's nil, as is
// what `index` finds for a missing key), or a Go int (range indexes, literals),
// or a field a map lacks: OPA's newest release renders it `<undefined>` (1.7.1
// stopped with missingkey=error).
struct TV {
    Value v;
    bool go_int = false;
    bool missing = false;
};

void append_go_value(std::string& out, const Value& v, bool top) {
    switch (v.kind()) {
        case runtime::Kind::Null: out += top ? "<no value>" : "<nil>"; return;
        case runtime::Kind::Boolean: out += v.as_bool() ? "true" : "false"; return;
        case runtime::Kind::Number: out += v.as_number().to_string(); return;
        case runtime::Kind::String: out += v.as_string(); return;
        case runtime::Kind::Array:
        case runtime::Kind::Set: {
            out += '[';
            auto elems = v.is_array() ? v.array_elements() : v.set_elements();
            for (std::size_t i = 0; i < elems.size(); ++i) {
                if (i) out += ' ';
                append_go_value(out, elems[i], false);
            }
            out += ']';
            return;
        }
        case runtime::Kind::Object: {
            out += "map[";
            bool first = true;
            for (const auto& e : v.object_entries()) {
                if (!first) out += ' ';
                first = false;
                append_go_value(out, e.key, false);
                out += ':';
                append_go_value(out, e.value, false);
            }
            out += ']';
            return;
        }
    }
}

std::string go_string(const TV& t, bool top) {
    if (t.missing) return "<undefined>";
    std::string out;
    append_go_value(out, t.v, top);
    return out;
}

// Go template truth: JSON numbers are json.Number strings (true unless empty).
bool truth(const TV& t) {
    if (t.go_int) {
        std::int64_t i = 0;
        t.v.as_int64(i);
        return i != 0;
    }
    switch (t.v.kind()) {
        case runtime::Kind::Null: return false;
        case runtime::Kind::Boolean: return t.v.as_bool();
        case runtime::Kind::Number: return true;
        default: return t.v.size() > 0;
    }
}

class Executor {
public:
    Executor(const Value& root, int line, runtime::WorkBudget* budget) : budget_(budget), line_(line) {
        vars_.push_back({"$", TV{root}});
    }

    std::string out;

    void run(const NodeList& list, const TV& dot) {
        for (const auto& n : list) run_node(*n, dot);
    }

private:
    std::vector<std::pair<std::string, TV>> vars_;
    std::size_t steps_ = 0;
    std::size_t counted_ = 0;  // output already counted as work
    runtime::WorkBudget* budget_;
    int line_;

    void step() {
        if (++steps_ > kMaxSteps) fail(line_, "template execution exceeds the step limit");
        if (out.size() > kMaxOutput) fail(line_, "template output exceeds the size limit");
        // Each step and each 16 bytes written is work: the evaluation's deadline and memory limit bound it.
        if (budget_ && budget_->spend(1 + (out.size() - counted_) / 16)) throw TemplateStopped{};
        counted_ = out.size();
    }

    void run_node(const Node& n, const TV& dot) {
        step();
        line_ = n.pipe.line;
        switch (n.kind) {
            case Node::Text: out += n.text; return;
            case Node::Action: {
                TV v = eval_pipeline(n.pipe, dot);
                if (n.pipe.vars.empty()) out += go_string(v, true);
                return;
            }
            case Node::If:
            case Node::With: {
                auto mark = vars_.size();
                TV v = eval_pipeline(n.pipe, dot);
                if (truth(v)) run(n.list, n.kind == Node::With ? v : dot);
                else run(n.else_list, dot);
                vars_.resize(mark);
                return;
            }
            case Node::Range: run_range(n, dot); return;
        }
    }

    void run_range(const Node& n, const TV& dot) {
        auto mark = vars_.size();
        Pipeline p = n.pipe;
        auto names = p.vars;
        p.vars.clear();
        TV coll = eval_pipeline(p, dot);
        auto body = [&](TV key, TV elem) {
            auto inner = vars_.size();
            if (names.size() == 1) vars_.push_back({names[0], elem});
            else if (names.size() == 2) {
                vars_.push_back({names[0], key});
                vars_.push_back({names[1], elem});
            }
            run(n.list, elem);
            vars_.resize(inner);
        };
        bool any = false;
        if (coll.v.is_array() || coll.v.is_set()) {
            auto elems = coll.v.is_array() ? coll.v.array_elements() : coll.v.set_elements();
            for (std::size_t i = 0; i < elems.size(); ++i) {
                any = true;
                body(TV{Value::integer(static_cast<std::int64_t>(i)), true}, TV{elems[i]});
            }
        } else if (coll.v.is_object()) {
            for (const auto& e : coll.v.object_entries()) {
                any = true;
                body(TV{e.key}, TV{e.value});
            }
        } else if (coll.go_int) {
            std::int64_t count = 0;
            coll.v.as_int64(count);
            for (std::int64_t i = 0; i < count; ++i) {
                any = true;
                step();
                body(TV{Value::integer(i), true}, TV{Value::integer(i), true});
            }
        } else if (!coll.v.is_null()) {
            fail_here(fmt::format("range can't iterate over {}", go_string(coll, false)));
        }
        if (!any) run(n.else_list, dot);
        vars_.resize(mark);
    }

    const Command* cmd_ = nullptr;  // the command whose function is being called

    // An error of the called function, placed at its command as Go places it.
    [[noreturn]] void fail_call(const std::string& msg) {
        if (!cmd_) fail(line_, msg);
        fail_at(cmd_->args[0].line, cmd_->args[0].col, cmd_->src(), msg);
    }

    TV lookup_var(const std::string& name) {
        for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
            if (it->first == name) return it->second;
        fail(line_, fmt::format("undefined variable: {}", name));
    }

    // The node Go's executor is at (state.at: the last field, variable or command begun), which
    // its errors name.
    const Term* at_ = nullptr;

    [[noreturn]] void fail_here(const std::string& msg) {
        if (!at_) fail(line_, msg);
        fail_at(at_->line, at_->col, at_->src, msg);
    }

    // Data values are Go's interface {} (decoded JSON), range indexes and literals ints.
    TV field_chain(TV v, const Term& t) {
        if (t.kind != Term::Sub) at_ = &t;  // a chain after (...) is placed where its pipeline ended
        for (const auto& f : t.chain) {
            if (v.missing) return v;
            if (!v.v.is_object() || v.go_int) {
                if (v.v.is_null()) fail_here(fmt::format("nil pointer evaluating interface {{}}.{}", f));
                fail_here(fmt::format("can't evaluate field {} in type {}", f, v.go_int ? "int" : "interface {}"));
            }
            const Value* next = v.v.find(f);
            if (!next) return TV{Value::null(), false, true};
            v = TV{*next};
        }
        return v;
    }

    TV eval_term(const Term& t, const TV& dot) {
        switch (t.kind) {
            case Term::Dot: return dot;
            case Term::Field: return field_chain(dot, t);
            case Term::Var: return field_chain(lookup_var(t.text), t);
            case Term::String: return TV{Value::string(t.text)};
            case Term::Int: return TV{Value::integer(t.i), true};
            case Term::Bool: return TV{Value::boolean(t.b)};
            case Term::Nil: fail(line_, "nil is not a command");
            case Term::Func: return call(t.text, {}, dot);
            case Term::Sub: return field_chain(eval_pipeline(*t.sub, dot), t);
        }
        return TV{};
    }

    TV eval_pipeline(const Pipeline& p, const TV& dot) {
        std::optional<TV> prev;
        for (const auto& cmd : p.cmds) {
            const Term& head = cmd.args[0];
            if (head.kind == Term::Func) {
                at_ = &head;  // Go's state.at(cmd), before the arguments
                std::vector<TV> args;
                for (std::size_t i = 1; i < cmd.args.size(); ++i) args.push_back(eval_term(cmd.args[i], dot));
                if (prev) args.push_back(*prev);
                const Command* outer = cmd_;
                cmd_ = &cmd;
                prev = call(head.text, args, dot);
                cmd_ = outer;
            } else {
                if (cmd.args.size() > 1 || prev) fail(line_, "can't give argument to non-function");
                prev = eval_term(head, dot);
            }
        }
        TV result = prev ? *prev : TV{};
        if (!p.vars.empty()) {
            if (p.declare) {
                vars_.push_back({p.vars.back(), result});
            } else {
                bool found = false;
                for (auto it = vars_.rbegin(); it != vars_.rend(); ++it)
                    if (it->first == p.vars.back()) {
                        it->second = result;
                        found = true;
                        break;
                    }
                if (!found) fail(line_, fmt::format("undefined variable: {}", p.vars.back()));
            }
        }
        return result;
    }

    // Go's basicKind of an operand: json.Number is a string type; nil and composites have none.
    enum class GoKind { Bool, Int, String, Nil, Other };
    static GoKind go_kind(const TV& t) {
        if (t.go_int) return GoKind::Int;
        switch (t.v.kind()) {
            case runtime::Kind::Null: return GoKind::Nil;
            case runtime::Kind::Boolean: return GoKind::Bool;
            case runtime::Kind::Number:
            case runtime::Kind::String: return GoKind::String;
            default: return GoKind::Other;
        }
    }
    static std::string go_text(const TV& t) {
        return t.v.is_string() ? std::string(t.v.as_string()) : t.v.as_number().to_string();
    }
    static std::int64_t go_int(const TV& t) {
        std::int64_t i = 0;
        t.v.as_int64(i);
        return i;
    }

    // text/template's eq: operands of one basic kind compare, nil equals nil, anything else
    // against nil is false, other mixes are errors, as are composites.
    bool go_eq(const std::string& name, const TV& a, const std::vector<TV>& others) {
        GoKind k1 = go_kind(a);
        for (const auto& b : others) {
            GoKind k2 = go_kind(b);
            bool truth = false;
            if (k1 != k2) {
                if (k1 != GoKind::Nil && k2 != GoKind::Nil)
                    fail_call("error calling " + name + ": incompatible types for comparison");
            } else {
                switch (k1) {
                    case GoKind::Bool: truth = a.v.as_bool() == b.v.as_bool(); break;
                    case GoKind::Int: truth = go_int(a) == go_int(b); break;
                    case GoKind::String: truth = go_text(a) == go_text(b); break;
                    case GoKind::Nil: truth = true; break;
                    case GoKind::Other:
                        if (go_type_name(a) != go_type_name(b))
                            fail_call(fmt::format("error calling {}: non-comparable types {}: {}, {}: {}", name,
                                                  go_string(a, false), go_type_name(a), go_type_name(b),
                                                  go_string(b, false)));
                        fail_call(fmt::format("error calling {}: non-comparable type {}: {}", name, go_string(b, false),
                                              go_type_name(b)));
                }
            }
            if (truth) return true;
        }
        return false;
    }

    // text/template's lt: ints by value, strings (json.Number too) bytewise.
    bool go_lt(const std::string& name, const TV& a, const TV& b) {
        GoKind k1 = go_kind(a), k2 = go_kind(b);
        auto basic = [](GoKind k) { return k != GoKind::Nil && k != GoKind::Other; };
        if (!basic(k1) || !basic(k2)) fail_call("error calling " + name + ": invalid type for comparison");
        if (k1 != k2) fail_call("error calling " + name + ": incompatible types for comparison");
        if (k1 == GoKind::Bool) fail_call("error calling " + name + ": invalid type for comparison");
        return k1 == GoKind::Int ? go_int(a) < go_int(b) : go_text(a) < go_text(b);
    }

    TV call(const std::string& name, const std::vector<TV>& args, const TV&) {
        auto need = [&](std::size_t n) {
            if (args.size() < n)
                fail(line_, fmt::format("wrong number of args for {}: want at least {} got {}", name, n, args.size()));
        };
        if (name == "len") {
            need(1);
            const TV& a = args[0];
            // A json.Number is a string: its length is its text's.
            if (!a.go_int && a.v.is_number())
                return TV{Value::integer(static_cast<std::int64_t>(go_text(a).size())), true};
            if (a.go_int || !(a.v.is_string() || a.v.is_array() || a.v.is_set() || a.v.is_object()))
                fail_call("error calling len: len of type " + go_type_name(a));
            return TV{Value::integer(static_cast<std::int64_t>(a.v.size())), true};
        }
        if (name == "index") {
            need(1);
            TV v = args[0];
            for (std::size_t i = 1; i < args.size(); ++i) {
                const TV& k = args[i];
                if (v.v.is_array()) {
                    std::int64_t idx = 0;
                    if (!k.go_int || !k.v.as_int64(idx))
                        fail_call("error calling index: cannot index slice/array with non-integer");
                    if (idx < 0 || static_cast<std::size_t>(idx) >= v.v.size())
                        fail_call(fmt::format("error calling index: index out of range: {}", idx));
                    v = TV{v.v.array_elements()[static_cast<std::size_t>(idx)]};
                } else if (v.v.is_object()) {
                    // A missing key gives the map's zero value, nil (missingkey is for fields).
                    const Value* next = v.v.find(k.v);
                    v = next ? TV{*next} : TV{Value::null()};
                } else {
                    fail_call("error calling index: can't index item");
                }
            }
            return v;
        }
        if (name == "not") {
            need(1);
            return TV{Value::boolean(!truth(args[0]))};
        }
        if (name == "and" || name == "or") {
            need(1);
            bool want = name == "or";
            for (const auto& a : args)
                if (truth(a) == want) return a;
            return args.back();
        }
        if (name == "eq" || name == "ne") {
            if (name == "eq" && args.size() < 2) fail_call("error calling eq: missing argument for comparison");
            need(2);
            bool eq = go_eq(name, args[0], std::vector<TV>(args.begin() + 1, args.end()));
            return TV{Value::boolean(name == "eq" ? eq : !eq)};
        }
        if (name == "lt" || name == "le" || name == "gt" || name == "ge") {
            need(2);
            // As Go: le is lt or eq, gt is not le, ge is not lt.
            bool r = false;
            if (name == "lt" || name == "ge") r = go_lt(name, args[0], args[1]) == (name == "lt");
            else r = (go_lt(name, args[0], args[1]) || go_eq(name, args[0], {args[1]})) == (name == "le");
            return TV{Value::boolean(r)};
        }
        // Go's Sprint (Sprintln spaces every pair and ends the line). The escapers print their
        // operands so too, but a nil as "<no value>" (Go's evalArgs, printableValue).
        auto sprint = [&](bool line, bool escaper) {
            std::string s;
            for (std::size_t i = 0; i < args.size(); ++i) {
                // Sprint spaces operands neither of which is a string (json.Number is one; an
                // escaper's "<no value>" is one too).
                auto is_string = [&](const TV& t) {
                    return go_kind(t) == GoKind::String || (escaper && t.v.is_null());
                };
                bool is_str = is_string(args[i]);
                bool prev_str = i > 0 && is_string(args[i - 1]);
                if (i > 0 && (line || (!is_str && !prev_str))) s += ' ';
                s += escaper && args[i].v.is_null() ? "<no value>" : go_string(args[i], false);
            }
            if (line) s += '\n';
            return s;
        };
        if (name == "print" || name == "println") return TV{Value::string(sprint(name == "println", false))};
        if (name == "html")
            return TV{Value::string(support::html_escape(sprint(false, true), support::HtmlNul::Replace))};
        if (name == "urlquery") return TV{Value::string(go_url::query_escape(sprint(false, true)))};
        if (name == "js") return TV{Value::string(js_escape(sprint(false, true)))};
        if (name == "printf") {
            need(1);
            if (args[0].go_int || !args[0].v.is_string())
                fail_here("wrong type for value; expected string; got " + go_type_name(args[0]));
            std::vector<gofmt::Arg> operands;
            for (std::size_t i = 1; i < args.size(); ++i) operands.push_back(go_fmt_arg(args[i]));
            return TV{Value::string(gofmt::sprintf(args[0].v.as_string(), operands))};
        }
        fail(line_, fmt::format("function \"{}\" not defined", name));
    }

    // The Go type a template operand has: data arrives as OPA hands it to Go's
    // template, decoded JSON (numbers are json.Number), constants as Go's.
    static std::string go_type_name(const TV& t) {
        if (t.v.is_null()) return "<nil>";
        if (t.go_int) return "int";
        switch (t.v.kind()) {
            case runtime::Kind::Boolean: return "bool";
            case runtime::Kind::Number: return "json.Number";
            case runtime::Kind::String: return "string";
            case runtime::Kind::Object: return "map[string]interface {}";
            default: return "[]interface {}";
        }
    }

    static gofmt::Arg go_fmt_arg(const TV& t) {
        if (t.v.is_null()) return gofmt::Arg::nil();
        std::int64_t i = 0;
        if (t.go_int && t.v.as_int64(i)) return gofmt::Arg::integer(i);
        switch (t.v.kind()) {
            case runtime::Kind::Boolean: return gofmt::Arg::boolean(t.v.as_bool());
            case runtime::Kind::Number: return gofmt::Arg::named_string(t.v.as_number().to_string(), "json.Number");
            case runtime::Kind::String: return gofmt::Arg::string(std::string(t.v.as_string()));
            default: {
                std::string text;
                append_go_value(text, t.v, false);
                return gofmt::Arg::composite(std::move(text), go_type_name(t));
            }
        }
    }
};

}  // namespace

TemplateResult render_template(std::string_view tmpl, const runtime::Value& vars, runtime::WorkBudget* budget) {
    TemplateResult res;
    try {
        Parser parser(split_items(tmpl));
        NodeList tree = parser.parse();
        Executor exec(vars, 1, budget);
        exec.run(tree, TV{vars});
        res.ok = true;
        res.output = std::move(exec.out);
    } catch (const TemplateStopped&) {
        res.stopped = true;
    } catch (const TemplateError& e) {
        res.error = e.what();
    } catch (const std::exception& e) {
        res.error = std::string("template: ") + e.what();
    }
    return res;
}

}  // namespace gavel::stdlib
