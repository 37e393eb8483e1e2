// The module driver: runs the grammar statement by statement so that one
// syntax error does not hide the next, applies imports that change the dialect
// (`import rego.v1`, `future.keywords.*`), and turns the furthest failure of a
// statement into a clear message.

#include "lang/parse.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "lang/annotations.hpp"
#include "lang/ast_depth.hpp"
#include "lang/builtins.hpp"
#include "lang/grammar.hpp"
#include "lang/lexical.hpp"
#include "lang/opa_error_list.hpp"
#include "lang/source_scan.hpp"

namespace gavel::lang {

namespace {

using lexical::is_active_keyword;
using lexical::is_ident_char;
using lexical::is_ident_start;
using lexical::skip_blank;

ParseState make_state(const Source& source, const ParseOptions& options, Diagnostics& diagnostics) {
    ParseState st;
    st.source = &source;
    st.begin = source.text().data();
    st.end = st.begin + source.text().size();
    st.v1 = !options.v0_compatible;
    st.experimental = options.experimental_keywords;
    st.keywords = st.v1 ? KeywordSet::all_v1() : KeywordSet{};
    st.max_else_branches = options.max_else_branches;
    st.diagnostics = &diagnostics;
    return st;
}

// How OPA names the token found where parsing stopped.
std::string describe_token(const char* p, const char* end) {
    if (p >= end) return "eof";
    if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') return "whitespace";
    if (is_ident_start(*p)) {
        const char* q = p;
        while (q < end && is_ident_char(*q)) ++q;
        std::string word(p, q);
        static constexpr std::string_view keywords[] = {"not",  "some",   "with",    "as",   "default",
                                                        "else", "import", "package", "true", "false",
                                                        "null", "in",     "every",   "if",   "contains"};
        for (auto k : keywords)
            if (word == k) return word;
        return "identifier";
    }
    if (lexical::is_digit(*p)) return "number";
    if (*p == '"' || *p == '`') return "string";
    static constexpr std::string_view two[] = {":=", "==", "!=", "<=", ">="};
    for (auto t : two)
        if (end - p >= 2 && std::string_view(p, 2) == t) return std::string(t);
    return std::string(1, *p);
}

std::string join_expected(const std::vector<std::string_view>& expected) {
    std::string out;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (i > 0) out += i + 1 == expected.size() ? " or " : ", ";
        out += expected[i];
    }
    return out;
}

// `token`, or `keyword` for a keyword in force, as OPA words it.
std::string_view token_kind(const ParseState& st, const char* p) {
    const char* q = p;
    while (q < st.end && is_ident_char(*q)) ++q;
    return q > p && is_active_keyword(st, std::string_view(p, static_cast<std::size_t>(q - p))) ? "keyword" : "token";
}

void report_syntax_error(ParseState& st, const char* fallback) {
    const char* at = st.furthest ? st.furthest : fallback;
    // OPA's message names the token, with a note only where OPA's parser has one; what
    // else could have stood there is gavel's hint beside the message.
    std::string message = fmt::format("unexpected {} {}", describe_token(at, st.end), token_kind(st, at));
    std::string hint;
    std::vector<std::string_view> structural;
    for (const auto& e : st.expected)
        if (e == "]" || e == "}" || e == ")" || e == "," || e == ";" || e == ":") structural.push_back(e);
    bool term = std::find(st.expected.begin(), st.expected.end(), "identifier") != st.expected.end();
    auto only = [&structural](std::initializer_list<std::string_view> want) {
        return structural.size() == want.size() &&
               std::is_permutation(structural.begin(), structural.end(), want.begin());
    };
    if (st.reason && st.furthest && *st.reason == ParseState::kIllegalToken) {
        message = std::string(ParseState::kIllegalToken);
    } else if (st.reason && st.furthest) {
        if (!st.reason->empty()) message += ": " + *st.reason;
    } else if (st.expected.size() == 1 && (st.expected[0] == "ident" || st.expected[0] == "identifier") &&
               at > st.begin && at[-1] == '.') {
        message += ": expected identifier";  // OPA's note after a dot in a reference
    } else if (!term && only({",", "]"})) {
        message += ": expected \",\" or \"]\"";  // OPA's array and call argument lists
    } else if (!term && only({",", "}"})) {
        message += ": expected \",\" or \"}\"";  // OPA's objects and sets
    } else if (!term && only({":"})) {
        message += ": expected \":\"";  // OPA's object keys
    } else if (std::find(structural.begin(), structural.end(), "}") != structural.end() &&
               std::find(structural.begin(), structural.end(), ";") != structural.end()) {
        message += ": expected \\n or ; or }";  // OPA's note after a literal of a braced body
    } else if (!st.expected.empty() && st.expected.size() <= 6) {
        hint = "expected " + join_expected(st.expected);
    } else if (!structural.empty()) {
        // Many things could continue an expression; the closers and separators are what people forgot.
        hint = "expected " + join_expected(structural) + (term ? " or a term" : " or an operator");
    } else if (term) {
        hint = "expected a term";
    }
    st.error(at, std::move(message), std::move(hint));
}

// The keyword that starts a statement; a word followed by `.` is a rule's ref head instead.

std::string_view next_word(const char* p, const char* end) {
    const char* q = p;
    while (q < end && is_ident_char(*q)) ++q;
    if (q < end && *q == '.') return {};
    return {p, static_cast<std::size_t>(q - p)};
}

// Where a statement may end: at a line break, a comment, or, as OPA's parser takes
// statements from a token stream, where another one starts on the same line
// (`package p x := 1`, `a b` under v0: two rule names OPA refuses each).
bool statement_ends_line(ParseState& st, const char*& p) {
    const char* q = p;
    bool semicolon = false;
    for (; q < st.end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == ';'); ++q) semicolon = semicolon || *q == ';';
    if (q == st.end || *q == '\n' || *q == '#') return true;
    if (!semicolon && q > p && is_ident_start(*q) && !(st.furthest && st.furthest > q)) {
        p = q;
        return true;
    }
    // An optional part (a body) that failed further on explains the leftover best.
    if (st.furthest && st.furthest > q) {
        report_syntax_error(st, q);
        p = st.furthest;
        return false;
    }
    st.error(q,
             fmt::format("unexpected {} token: expected a line break after the statement", describe_token(q, st.end)));
    p = q;
    return false;
}

// Words that cannot end an import path without an alias (OPA's KeywordsV0 / KeywordsV1).
bool is_keyword_of_dialect(std::string_view word, bool v1) {
    static constexpr std::string_view always[] = {"not",  "package", "import", "as",    "default", "else",
                                                  "with", "null",    "true",   "false", "some"};
    for (auto k : always)
        if (word == k) return true;
    return v1 && (word == "if" || word == "contains" || word == "in" || word == "every");
}

// A path for a message: `rego.foo`, or its source text when not a plain dotted ref.
std::string path_text(const TermPtr& path) {
    std::string dotted = path->ref_dotted();
    return dotted.empty() ? std::string(path->loc.text()) : dotted;
}

// What OPA's parseImport (and its rego/future checks) refuses. True when the import is fine.
bool check_import(ParseState& st, const Import& imp, bool v1_mode) {
    const TermPtr& path = imp.path;
    const std::vector<TermPtr> parts = path->kind == TermKind::Ref ? path->elems : std::vector<TermPtr>{path};
    const char* at = st.begin + path->loc.offset;
    const std::string& root = parts.front()->text;
    if (root != "data" && root != "input" && root != "future" && root != "rego") {
        st.error(at,
                 fmt::format("unexpected import path, must begin with one of: {{data, future, input, rego}}, got: {}",
                             root));
        return false;
    }
    if (imp.alias.empty() && root != "future" && is_keyword_of_dialect(parts.back()->text, v1_mode)) {
        st.error(st.begin + parts.back()->loc.offset,
                 fmt::format("unexpected import path, must not end with a keyword, got: {}", parts.back()->text));
        return false;
    }
    if (root == "rego") {
        if (parts.size() != 2 || parts[1]->text != "v1") {
            st.error(at, fmt::format("invalid import `{}`, must be `rego.v1`", path_text(path)));
            return false;
        }
        if (!v1_mode && !imp.alias.empty()) {
            st.error(at, "`rego` imports cannot be aliased");
            return false;
        }
    }
    if (root == "future") {
        if (parts.size() == 1 || parts[1]->text != "keywords") {
            st.error(at, "invalid import, must be `future.keywords`");
            return false;
        }
        if (!imp.alias.empty()) {
            st.error(at, "`future` imports cannot be aliased");
            return false;
        }
    }
    return true;
}

void apply_import(ParseState& st, const Import& imp) {
    std::string path = imp.path->ref_dotted();
    if (path == "rego.v1") {
        st.v1 = true;
        st.keywords.in = st.keywords.every = st.keywords.if_ = st.keywords.contains = true;
        return;
    }
    if (path == "future.keywords") {
        st.keywords.in = st.keywords.every = st.keywords.if_ = st.keywords.contains = true;
        return;
    }
    const std::string prefix = "future.keywords.";
    if (path.rfind(prefix, 0) != 0) return;
    std::string word = path.substr(prefix.size());
    if (word == "in") st.keywords.in = true;
    else if (word == "every") st.keywords.every = st.keywords.in = true;  // every needs `in`, as in OPA
    else if (word == "if") st.keywords.if_ = true;
    else if (word == "contains") st.keywords.contains = true;
    else if (word == "not") st.keywords.not_block = true;
    else if ((word == "and" || word == "or") && st.experimental) st.keywords.logic = true;
    else if (word == "and" || word == "or")
        st.error(st.begin + imp.loc.offset,
                 fmt::format("unexpected keyword, must be one of [contains every if in]: `{}` is experimental "
                             "and needs experimental keywords enabled",
                             word));
    else
        st.error(st.begin + imp.loc.offset,
                 fmt::format("unexpected keyword, must be one of [contains every if in]: `{}`", word));
}

// What OPA's parser allows in a default rule (validateDefaultRuleValue and
// validateDefaultRuleArgs): a value without refs, variables or calls (outside
// comprehensions), and arguments that are distinct variables.
void validate_default(ParseState& st, const Rule& rule) {
    const char* at = st.begin + rule.loc.offset;
    bool reported = false;
    std::vector<const Term*> stack{rule.head.value.get()};
    while (!stack.empty() && !reported) {
        const Term* t = stack.back();
        stack.pop_back();
        if (t->kind == TermKind::Ref || t->kind == TermKind::Var || t->kind == TermKind::Call) {
            st.error(at, fmt::format("illegal default rule (value cannot contain {})", value_name(t->kind)));
            reported = true;
            break;
        }
        if (t->kind == TermKind::ArrayComprehension || t->kind == TermKind::SetComprehension ||
            t->kind == TermKind::ObjectComprehension)
            continue;
        for (const auto& e : t->elems) stack.push_back(e.get());
        for (const auto& [k, v] : t->items) {
            stack.push_back(v.get());
            stack.push_back(k.get());
        }
    }
    std::vector<std::string> seen;
    for (const auto& a : rule.head.args) {
        if (a->kind != TermKind::Var) {
            st.error(at, fmt::format("illegal default rule (arguments cannot contain {})", value_name(a->kind)));
            return;
        }
        if (a->text != "_" && std::find(seen.begin(), seen.end(), a->text) != seen.end()) {  // each `_` is its own
            st.error(at, fmt::format("illegal default rule (arguments cannot be repeated {})", a->text));
            return;
        }
        seen.push_back(a->text);
    }
}

// The dialects differ in how a rule head reads. v0's `p[x] { ... }` is a
// partial set; v1 requires `if` before a body and `contains` for multi-value rules.
void normalize_rule(ParseState& st, Rule& rule) {
    RuleHead& head = rule.head;
    // A head alone, as OPA reads it: a statement that is one term (ParseRuleFromExpr).
    if (!rule.is_default && rule.body.empty() && !head.value && !head.contains && !head.has_args) {
        std::size_t parts = head.ref->kind == TermKind::Ref ? head.ref->elems.size() : 1;
        if (parts == 1) {
            st.module_error(st.begin + head.ref->loc.offset, "var cannot be used for rule name");
            return;
        }
        if (st.v1 && parts == 2) {
            st.module_error(st.begin + rule.loc.offset, "`contains` keyword is required for partial set rules");
            return;
        }
        if (st.v1) {
            st.module_error(st.begin + rule.loc.offset, "rule must have value assignment and/or body declaration");
            return;
        }
    }
    // A call of a builtin alone (`count(1)`): OPA reads it as a query, which cannot be a rule.
    if (!rule.is_default && rule.body.empty() && !head.value && !head.contains && head.has_args &&
        find_builtin_decl(head.ref->kind == TermKind::Var ? head.ref->text : head.ref->ref_dotted())) {
        st.module_error(st.begin + rule.loc.offset, "rule name conflicts with built-in function");
        return;
    }
    for (Rule* r = &rule; r; r = r->else_rule.get()) {
        bool has_body = !r->body.empty();
        if (st.v1 && has_body && !r->has_if) {
            // As OPA: a head of two parts with no value reads as a v0 partial set.
            bool partial_set = r == &rule && !head.value && !head.contains && !head.has_args && head.ref &&
                               head.ref->kind == TermKind::Ref && head.ref->elems.size() == 2;
            // OPA reports the missing `if`, and for a partial set the missing `contains` too.
            // Each further body (`p { a } { b }`) is a rule of its own to OPA, with the same errors.
            std::size_t rules = r == &rule ? 1 + rule.extra_bodies.size() : 1;
            for (std::size_t i = 0; i < rules; ++i) {
                st.module_error(
                    st.begin + r->loc.offset,
                    head.has_args ? "`if` keyword is required before function body"
                                  : "`if` keyword is required before rule body",
                    "this is pre-1.0 Rego: add `if` (and `contains` for partial sets), or pass --v0-compatible");
                if (partial_set)
                    st.module_error(st.begin + r->loc.offset, "`contains` keyword is required for partial set rules");
            }
        }
    }
    // With `if` (a future keyword in v0), `p[x] if ...` is a single-value rule as in v1.
    // Without it a two-part head is a partial set, however written (`p[x]`, `p["x"]`,
    // `p.x`: OPA's parseRules back-compat); `p.x.y` or `p[x][y]` is a single value.
    if (!st.v1 && !rule.has_if && !head.contains && !head.value && !head.has_args && head.ref->kind == TermKind::Ref &&
        head.ref->elems.size() == 2) {
        head.key = head.ref->elems.back();
        head.ref->elems.pop_back();
        head.v0_bracket = true;
        if (head.ref->elems.size() == 1) head.ref = head.ref->elems.front();
    }
    if (head.ref->kind == TermKind::Var) head.ref = make_ref({head.ref}, head.ref->loc);
    // OPA's parseRules: `else` only follows a rule with one value at a ground path.
    if (rule.else_rule) {
        bool ground = true;
        for (std::size_t i = 1; i < head.ref->elems.size(); ++i) {
            TermKind k = head.ref->elems[i]->kind;
            ground &= k == TermKind::String || k == TermKind::Number || k == TermKind::Boolean || k == TermKind::Null;
        }
        const char* at = st.begin + rule.else_rule->loc.offset;
        if (!ground) st.error(at, "else keyword cannot be used on rules with variables in head");
        else if (head.key || head.contains) st.error(at, "else keyword cannot be used on multi-value rules");
    }
    // `p if {}` would read as "if an empty object", which nobody means.
    for (Rule* r = &rule; r; r = r->else_rule.get()) {
        if (!(r->has_if && r->body.size() == 1 && r->body[0].term && r->body[0].term->kind == TermKind::Object &&
              r->body[0].term->items.empty() && r->body[0].withs.empty()))
            continue;
        const char* before = st.begin + r->body[0].loc.offset;
        while (before > st.begin &&
               (before[-1] == ' ' || before[-1] == '\t' || before[-1] == '\n' || before[-1] == '\r'))
            --before;
        if (before == st.begin || before[-1] != '{')  // `p if { {} }` is a body holding an empty object
            st.error(st.begin + r->body[0].loc.offset, "found empty body");
    }
    if (rule.is_default && !rule.body.empty())
        st.error(st.begin + rule.loc.offset, "default rules must not have a body");
    if (rule.is_default && !head.value)
        st.error(st.begin + rule.loc.offset, "default rules must have a value assigned");
    if (rule.is_default && head.value) validate_default(st, rule);
}

// True when the tree is within the depth limit; otherwise reports where it is not.
bool report_too_deep(ParseState& st, const std::optional<Location>& deep, const ParseOptions& options) {
    if (!deep) return true;
    st.error(st.begin + deep->offset, "max parsing recursion depth exceeded",
             fmt::format("expression nesting exceeds gavel's limit of {} levels", options.max_depth));
    return false;
}

// What the lexical pass refuses before the grammar runs: nesting past the limit, bytes OPA's scanner refuses.
bool report_scan_errors(ParseState& st, const SourceScan& scan, const ParseOptions& options) {
    if (scan.too_deep) {
        st.error(scan.too_deep, "max parsing recursion depth exceeded",
                 fmt::format("brackets, braces and parentheses nest deeper than gavel's limit of {} levels",
                             options.max_nesting));
        return false;
    }
    if (scan.illegal) {
        st.error(scan.illegal, scan.illegal_reason);
        return false;
    }
    return true;
}

std::size_t path_parts(const Term& path) { return path.kind == TermKind::Ref ? path.elems.size() : 1; }

// A rule's path (package and head) is as deep as the data tree it builds, and
// trees are walked recursively: its length is bounded like AST depth.
bool report_path_too_long(ParseState& st, const char* start, const Module& module, const Rule& rule,
                          const ParseOptions& options) {
    std::size_t package_parts = module.package.path ? path_parts(*module.package.path) : 0;
    if (package_parts > options.max_depth) return false;  // the package was reported
    std::size_t parts = package_parts + (rule.head.ref ? path_parts(*rule.head.ref) : 0);
    if (parts <= options.max_depth) return true;
    st.error(start, fmt::format("rule path (package and head) has {} parts, more than the limit of {}", parts,
                                options.max_depth));
    return false;
}

// Why OPA's parseModule (ParseRuleFromBody) cannot read a query statement as a rule, where
// gavel's rule grammar has no rule to offer either; nullopt where OPA reads a rule (or gavel's
// grammar judges the statement itself: `x = 1`, `x := 1`, refs, calls of functions).
std::optional<std::string> query_rule_error(const Body& body) {
    if (body.size() != 1) return "multiple expressions cannot be used for rule head";
    const Expr& e = body.front();
    if (!e.withs.empty()) return "expressions using with keyword cannot be used for rule head";
    if (e.negated) return "negated expressions cannot be used for rule head";
    if (e.kind == ExprKind::Some) return "'some' declarations cannot be used for rule head";
    if (e.kind != ExprKind::Term || !e.term) return "expression cannot be used for rule head";
    const Term& t = *e.term;
    if (t.kind == TermKind::Call) {
        std::string op = t.call_name();
        if (op == "eq" || op == "assign" || !find_builtin_decl(op)) return std::nullopt;
        return "rule name conflicts with built-in function";
    }
    if (t.kind == TermKind::Ref || t.kind == TermKind::Var) return std::nullopt;
    return fmt::format("{} cannot be used for rule name", value_name(t.kind));
}

// OPA's parser reads a statement that is no rule as a query (literals separated by `;`, to
// the end of the line); its parseModule then says why that query is no rule. That is an
// error of the module stage: the parse goes on after the statement. True when so read.
bool read_as_query_statement(ParseState& st, const char* start, const char*& p) {
    if (next_word(start, st.end) == "default") return false;
    ParseState::Failures failures = st.failures();
    Diagnostics scratch;
    Diagnostics* errors = st.diagnostics;
    st.diagnostics = &scratch;
    const char* q = start;
    Body body;
    bool read = grammar::parse_query_statement(q, st.end, st, body) && scratch.empty();
    st.diagnostics = errors;
    const char* after = q;
    while (after < st.end && (*after == ' ' || *after == '\t' || *after == '\r')) ++after;
    std::optional<std::string> why;
    if (read && (after == st.end || *after == '\n' || *after == '#')) why = query_rule_error(body);
    if (!why) {
        st.restore(std::move(failures));
        return false;
    }
    st.module_error(st.begin + body.front().loc.offset, std::move(*why));
    p = q;
    return true;
}

}  // namespace

// OPA's parseHead, when the rule's value (or key, after `contains`) is a term it
// could not finish (`r := [1,`, `f(x) := g(1,`), reports that too: a second error
// at the first one's place, naming what the head wanted.
void report_rule_value_failure(ParseState& st, const char* start, Diagnostics& diagnostics, std::size_t before) {
    if (diagnostics.size() <= before || !st.furthest) return;
    const char* q = start;
    bool function = false;
    int depth = 0;
    while (q < st.end) {
        char c = *q;
        if (c == '[' || c == '(') {
            if (c == '(' && depth == 0) function = true;
            ++depth;
        } else if ((c == ']' || c == ')') && depth > 0) {
            --depth;
        } else if (depth == 0 && !(is_ident_char(c) || c == '.')) {
            break;
        }
        ++q;
    }
    if (depth != 0 || q == start) return;
    std::string head(start, q);
    while (q < st.end && (*q == ' ' || *q == '\t')) ++q;
    std::string note;
    const char* value = nullptr;
    if (st.end - q >= 2 && q[0] == ':' && q[1] == '=') {
        value = q + 2;
        note = function ? "expected function value term (e.g., " + head.substr(0, head.find('(')) +
                              "(...) := <VALUE> { ... })"
                        : "expected rule value term (e.g., " + head + " := <VALUE> { ... })";
    } else if (q < st.end && q[0] == '=' && !(st.end - q >= 2 && q[1] == '=')) {
        value = q + 1;
        note = function ? "expected function value term (e.g., " + head.substr(0, head.find('(')) +
                              "(...) = <VALUE> { ... })"
                        : "expected rule value term (e.g., " + head + "[<nil>] = <VALUE> { ... })";
    } else if (st.end - q >= 8 && std::string_view(q, 8) == "contains" && !function) {
        value = q + 8;
        note = "expected rule key term (e.g., " + head + " contains <VALUE> { ... })";
    }
    if (!value) return;
    while (value < st.end && (*value == ' ' || *value == '\t')) ++value;
    if (value >= st.end || st.furthest <= value) return;
    // Only a value term left unfinished: an open array, object, set or call.
    bool opens = *value == '[' || *value == '{';
    if (!opens && is_ident_start(*value)) {
        const char* r = value;
        while (r < st.end && (is_ident_char(*r) || *r == '.')) ++r;
        opens = r < st.end && *r == '(';
    }
    if (!opens) return;
    // ... and still open where the parse failed (`r := [1] +` failed after its value).
    int open = 0;
    bool quoted = false;
    for (const char* r = value; r < st.furthest; ++r) {
        if (quoted) {
            if (*r == '\\') ++r;
            else if (*r == '"') quoted = false;
            continue;
        }
        if (*r == '"') quoted = true;
        else if (*r == '[' || *r == '{' || *r == '(') ++open;
        else if ((*r == ']' || *r == '}' || *r == ')') && --open == 0) return;
    }
    Diagnostic second = diagnostics.items()[before];
    second.hint.clear();
    second.message =
        fmt::format("unexpected {} {}: {}", describe_token(st.furthest, st.end), token_kind(st, st.furthest), note);
    diagnostics.add(std::move(second));
}

namespace {

// One open bracket between a statement's start and where its parse failed, as OPA's parser
// would have entered it: a list it parses term by term, or a body it parses literal by literal.
struct OpenBracket {
    enum Kind { Array, Brace, Call, Paren, Index, Body } kind;
    int element = 0;               // commas seen at this level
    bool colon = false;            // `k: v` in the first element (an object)
    bool pair_colon = false;       // the current element has its `:`
    bool first_value_ops = false;  // the first pair's value has an operator (OPA does not re-read it)
    bool operators = false;        // an infix operator at this level in the current element (or literal)
    bool bar = false;              // a comprehension's `|`: a body follows
    bool some_literal = false;     // the current literal of a body starts with `some`
};

bool is_operand_end(char c) { return is_ident_char(c) || c == ')' || c == ']' || c == '}' || c == '"' || c == '`'; }

struct OpenBrackets {
    std::vector<OpenBracket> stack;
    bool after_operator = false;  // the last token before `at` is an infix operator
};

// The brackets open at `at`, read from `start`; nullopt when the text has something this
// reading does not follow (a string running past `at`).
std::optional<OpenBrackets> open_brackets(const ParseState& st, const char* start, const char* at) {
    std::vector<OpenBracket> stack;
    bool after_operator = false;
    char prev = 0;  // the last significant character
    std::string_view prev_word;
    bool line_start = true;  // in a body: the next word starts a literal
    auto level = [&]() -> OpenBracket* { return stack.empty() ? nullptr : &stack.back(); };
    auto mark_operator = [&]() {
        if (OpenBracket* b = level()) b->operators = true;
        after_operator = true;
    };
    for (const char* p = start; p < at;) {
        char c = *p;
        if (c == '\n' || c == ';') {
            if (OpenBracket* b = level(); b && (b->kind == OpenBracket::Body || b->bar)) {
                b->operators = false;
                b->some_literal = false;
                line_start = true;
            }
            prev = c == ';' ? ';' : prev;
            ++p;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            ++p;
            continue;
        }
        if (c == '#') {
            while (p < at && *p != '\n') ++p;
            continue;
        }
        if (c == '"' || c == '`') {
            const char* q = p + 1;
            // An escape steps over the byte after it, but never past the end of the text.
            while (q < st.end && *q != c && !(c == '"' && *q == '\n'))
                q += c == '"' && *q == '\\' && q + 1 < st.end ? 2 : 1;
            if (q >= at) return std::nullopt;
            p = q + 1;
            prev = c;
            prev_word = {};
            line_start = false;
            after_operator = false;
            continue;
        }
        if (is_ident_start(c) || lexical::is_digit(c)) {
            const char* q = p;
            while (q < at && (is_ident_char(*q) || *q == '.')) ++q;
            std::string_view word(p, static_cast<std::size_t>(q - p));
            after_operator = false;
            if (OpenBracket* b = level(); b && line_start && word == "some") b->some_literal = true;
            if (word == "in" && is_active_keyword(st, word) && prev != 0 && prev != ',') mark_operator();
            line_start = false;
            prev = q[-1];
            prev_word = word;
            p = q;
            continue;
        }
        line_start = false;
        after_operator = false;
        bool adjacent = p > start && is_operand_end(p[-1]);
        if (c == '[' || c == '(' || c == '{') {
            OpenBracket b{OpenBracket::Array};
            if (c == '[') {
                b.kind = adjacent ? OpenBracket::Index : OpenBracket::Array;
            } else if (c == '(') {
                b.kind = adjacent ? OpenBracket::Call : OpenBracket::Paren;
            } else {
                // A brace after an operand (`if {`, `p {`, `every x in xs {`) opens a body.
                b.kind = is_operand_end(prev) || prev_word == "if" || prev_word == "else" ? OpenBracket::Body
                                                                                          : OpenBracket::Brace;
                line_start = b.kind == OpenBracket::Body;
            }
            stack.push_back(b);
            prev = c;
            prev_word = {};
            ++p;
            continue;
        }
        if (c == ']' || c == ')' || c == '}') {
            if (!stack.empty()) stack.pop_back();
            prev = c;
            prev_word = {};
            ++p;
            continue;
        }
        OpenBracket* b = level();
        if (c == ',') {
            if (b && !b->bar && b->kind != OpenBracket::Body) {
                if (b->element == 0 && b->colon) b->first_value_ops = b->operators;
                ++b->element;
                b->operators = false;
                b->pair_colon = false;
            }
        } else if (c == ':' && !(p + 1 < at && p[1] == '=')) {
            if (b && !b->bar) {
                b->colon = b->colon || b->element == 0;
                b->pair_colon = true;
                b->operators = false;  // the value's operators count from here
            }
        } else if (c == '|' && b && (b->kind == OpenBracket::Array || b->kind == OpenBracket::Brace) && !b->bar &&
                   b->element == 0 && !b->operators) {
            // OPA reads `[t | ...]` as a comprehension when t is one term.
            b->bar = true;
            b->operators = false;
            line_start = true;
        } else if (std::string_view("*/%+-&|=!<>").find(c) != std::string_view::npos) {
            bool assign = c == '=' && !(p + 1 < at && p[1] == '=');
            bool unary_minus = c == '-' && !is_operand_end(prev);
            if (!assign && !unary_minus) mark_operator();
            if (assign && b) b->operators = false;  // `x := ...` in a body: the value is a new term
            if (p + 1 < at && (p[1] == '=' || (c == ':' && p[1] == '='))) ++p;
        }
        prev = c;
        prev_word = {};
        ++p;
    }
    return OpenBrackets{std::move(stack), after_operator};
}

}  // namespace

// OPA's parser, when the operand after an infix operator fails (`[x * 2 | some x in xs]`:
// `|` is the union operator there, as `x * 2` is no single term), keeps what it read before
// the operator; the list around it then finds the failed token where a `,` or its end should
// be and reports that too. Each enclosing list whose element failed after an operator adds
// such an error, at the first one's place.
void report_failed_operand(ParseState& st, const char* start, Diagnostics& diagnostics, std::size_t before) {
    if (diagnostics.size() != before + 1 || !st.furthest) return;
    const char* at = st.furthest;
    if (at < st.end && std::string_view(",)]}\n*/%+-&|=!<>").find(*at) != std::string_view::npos) return;
    // An operator where the operand failed continues the expression in OPA's parser.
    if (at < st.end && is_ident_start(*at) && next_word(at, st.end) == "in") return;
    auto open = open_brackets(st, start, at);
    if (!open) return;
    std::vector<std::string> notes;
    bool innermost = true;
    for (auto b = open->stack.rbegin(); b != open->stack.rend(); ++b) {
        // Innermost, the operand failed right after an operator, or the element's term was whole
        // (or empty) there and the list's own error is the one reported.
        bool failed_operand = innermost ? open->after_operator : b->operators;
        innermost = false;
        if (b->some_literal) return;              // OPA reads `some x in ...` twice, and reports the second reading
        if (b->kind == OpenBracket::Body) break;  // a literal ends the chain
        if (b->kind == OpenBracket::Index) return;
        if (b->bar) {
            // A comprehension whose body failed is no term; an object's is read again (OPA restores).
            if (b->colon) return;
            continue;
        }
        if (b->kind == OpenBracket::Brace && b->colon && b->element > 0 && !b->first_value_ops) {
            return;  // OPA re-reads an object after its first pair and reports that instead
        }
        if (!failed_operand) continue;  // the failed term was the element's first operand: no term, no note
        switch (b->kind) {
            case OpenBracket::Array: notes.emplace_back(": expected \",\" or \"]\""); break;
            case OpenBracket::Call: notes.emplace_back(": expected \",\" or \")\""); break;
            case OpenBracket::Paren: notes.emplace_back("non-terminated expression"); break;
            default:
                if (b->element == 0) notes.emplace_back(b->colon ? ": non-terminated object" : ": non-terminated set");
                else if (b->colon && !b->pair_colon) notes.emplace_back(": expected \":\"");
                else notes.emplace_back(": expected \",\" or \"}\"");
        }
    }
    const Diagnostic first = diagnostics.items()[before];
    const std::string unexpected = fmt::format("unexpected {} {}", describe_token(at, st.end), token_kind(st, at));
    for (const auto& note : notes) {
        Diagnostic d = first;
        d.hint.clear();
        d.message = note.front() == ':' ? unexpected + note : note;
        diagnostics.add(std::move(d));
    }
}

namespace {

// OPA's parser reports more than the first syntax error: each attempt that failed on the way
// (a term, the list around it, the rule head that wanted it) adds its own, and its scanner
// reports a token it could not read before the parser calls it illegal. Where gavel's grammar
// found a syntax error, the list OPA's control flow gives (lang/opa_error_list.hpp) replaces
// gavel's; gavel's hint stays on the first error when both point at the same place. The
// pre-1.0 dialect and gavel's own keywords (`future.keywords.not`, experimental `and`/`or`)
// keep gavel's list, as does a text nested deeper than that reading follows.
void adopt_opa_error_list(const Source& source, Diagnostics& diagnostics, const ParseOptions& options, bool skip_rules,
                          bool gavel_keywords) {
    if (diagnostics.empty() || options.v0_compatible || options.experimental_keywords || gavel_keywords) return;
    opa::ErrorListOptions list_options;
    list_options.skip_rules = skip_rules;
    std::optional<std::vector<opa::ParseError>> opa_errors = opa::parse_error_list(source.text(), list_options);
    if (!opa_errors || opa_errors->empty()) return;
    const Diagnostic& first = diagnostics.items().front();
    Diagnostics adopted;
    for (const opa::ParseError& e : *opa_errors) {
        Location loc;
        loc.source = &source;
        loc.offset = static_cast<uint32_t>(std::min(static_cast<std::size_t>(e.offset), source.text().size()));
        loc.line = static_cast<uint32_t>(e.row);
        loc.col = static_cast<uint32_t>(e.col);
        adopted.add(loc, codes::parse_error, e.message);
        if (adopted.size() == 1 && first.line == loc.line && first.col == loc.col) adopted.back().hint = first.hint;
    }
    diagnostics = std::move(adopted);
}

}  // namespace

ModuleResult parse_module(std::string file, std::string text, const ParseOptions& options) {
    ModuleResult result;
    auto source = std::make_shared<Source>(std::move(file), std::move(text));
    Module module;
    module.source = source;
    ParseState st = make_state(*source, options, result.diagnostics);
    Diagnostics module_checks;
    st.module_checks = &module_checks;

    if (source->text().size() > options.max_bytes) {
        st.error(st.begin, fmt::format("module is {} bytes, more than the limit of {}", source->text().size(),
                                       options.max_bytes));
        return result;
    }
    SourceScan scan = scan_source(st, options.max_nesting);
    if (!report_scan_errors(st, scan, options)) {
        adopt_opa_error_list(*source, result.diagnostics, options, false, false);
        return result;
    }
    module.comments = std::move(scan.comments);

    const char* p = st.begin;
    bool have_package = false;
    // OPA's module stage skips a first statement that is no package (after "package expected"):
    // the checks of that statement, read as a rule here, are dropped once it ends.
    enum class FirstStatement { Package, Reread, Reading } first = FirstStatement::Package;
    std::size_t checks_before_first = 0;
    while (true) {
        skip_blank(p, st.end);
        if (first == FirstStatement::Reading) {
            module_checks.truncate(checks_before_first);
            first = FirstStatement::Package;
        } else if (first == FirstStatement::Reread) {
            first = FirstStatement::Reading;
        }
        if (p >= st.end) break;
        st.begin_statement();
        const char* start = p;
        std::string_view word = next_word(p, st.end);
        bool ok = false;
        if (!have_package) {
            Package pkg;
            ok = grammar::parse_package(p, st.end, st, pkg);
            if (ok) {
                if (std::size_t parts = path_parts(*pkg.path); parts > options.max_depth)
                    st.error(start, fmt::format("package path has {} parts, more than the limit of {}", parts,
                                                options.max_depth));
                module.package = std::move(pkg);
                have_package = true;
            } else if (word != "package") {
                st.module_error(start, "package expected");
                have_package = true;  // report once, then keep checking the rest
                checks_before_first = module_checks.size();
                first = FirstStatement::Reread;
                p = start;
                continue;
            }
        } else if (word == "package") {
            // A second package reads as one; OPA's module stage refuses it, and the parse goes on.
            Package again;
            if (grammar::parse_package(p, st.end, st, again)) {
                st.module_error(start, "unexpected package", "a module has one package declaration");
                if (!statement_ends_line(st, p)) break;
                continue;
            }
            ok = false;
        } else if (word == "import") {
            Import imp;
            // OPA's parser takes statements in any order: an import may follow rules.
            ok = grammar::parse_import(p, st.end, st, imp);
            if (ok && check_import(st, imp, !options.v0_compatible)) {
                apply_import(st, imp);
                module.imports.push_back(std::move(imp));
            }
        } else {
            Rule rule;
            std::size_t errors_before = result.diagnostics.size();
            // OPA's parser reads `contains` as a name where a rule starts (`contains[x] { ... }`),
            // and its module stage refuses the keyword as a rule's whole name.
            ok = grammar::parse_rule(p, st.end, st, rule);
            if (!ok && st.keywords.contains && st.end - start > 8 && std::string_view(start, 8) == "contains" &&
                !is_ident_char(start[8])) {
                ParseState::Failures failures = st.failures();
                const std::size_t errors = result.diagnostics.size();
                const char* q = start;
                Rule named;
                st.keywords.contains = false;
                bool read = grammar::parse_rule(q, st.end, st, named);
                st.keywords.contains = true;
                if (read && result.diagnostics.size() == errors) {
                    rule = std::move(named);
                    p = q;
                    ok = true;
                    const RuleHead& head = rule.head;
                    std::size_t parts = head.ref && head.ref->kind == TermKind::Ref ? head.ref->elems.size() : 1;
                    if (parts == 2 && !head.value && !head.has_args && !rule.has_if) parts = 1;  // a v0 partial set
                    if (parts < 2) st.module_error(start, "contains keyword cannot be used for rule name");
                } else {
                    result.diagnostics.truncate(errors);
                    st.restore(std::move(failures));
                }
            }
            // An error the grammar reported itself (an else where none may stand, too many
            // else branches) ends the parse there, as OPA's parseRules does.
            // A string the scanner could not end is also the parser's "illegal token" there.
            if (ok && result.diagnostics.size() > errors_before) {
                if (st.reason && st.furthest && *st.reason == ParseState::kIllegalToken) report_syntax_error(st, start);
                break;
            }
            if (ok) {
                // `x := 1 with input as 2` is no rule: perhaps a query OPA reads.
                const char* next = p;
                while (next < st.end && (*next == ' ' || *next == '\t')) ++next;
                if (const char* q = start; next_word(next, st.end) == "with" && read_as_query_statement(st, start, q)) {
                    p = q;
                    continue;
                }
                // A rule is judged as a whole only once its statement ended where it should.
                std::size_t before = result.diagnostics.size();
                if (!statement_ends_line(st, p)) {
                    // Not a rule after all (`x := 1 with input as 2`): perhaps a query OPA reads.
                    if (const char* q = start; read_as_query_statement(st, start, q)) {
                        result.diagnostics.truncate(before);
                        p = q;
                        continue;
                    }
                    // OPA stops at the first statement it cannot read
                    report_failed_operand(st, start, result.diagnostics, before);
                    report_rule_value_failure(st, start, result.diagnostics, before);
                    break;
                }
                if (report_too_deep(st, find_too_deep(rule, options.max_depth), options) &&
                    report_path_too_long(st, start, module, rule, options)) {
                    std::size_t rule_errors = result.diagnostics.size();
                    normalize_rule(st, rule);
                    module.rules.push_back(std::move(rule));
                    // Its syntax errors (an else where none may stand, a bad default) end OPA's parse.
                    if (result.diagnostics.size() > rule_errors) break;
                }
                continue;
            }
        }
        // OPA's parser stops at the first statement it cannot read: the errors are that statement's.
        if (!ok && word != "import" && word != "package") {
            const char* q = start;
            if (read_as_query_statement(st, start, q)) {
                p = q;
                continue;
            }
        }
        if (!ok) {
            std::size_t before = result.diagnostics.size();
            report_syntax_error(st, start);
            if (word != "import" && word != "package") {
                report_failed_operand(st, start, result.diagnostics, before);
                report_rule_value_failure(st, start, result.diagnostics, before);
            }
            break;
        }
        if (!statement_ends_line(st, p)) break;
    }
    if (first == FirstStatement::Reading) module_checks.truncate(checks_before_first);
    if (!have_package) st.error(st.begin, "package expected");
    adopt_opa_error_list(*source, result.diagnostics, options, false, st.keywords.not_block || st.keywords.logic);
    // OPA's parseModule runs only on statements that all parsed.
    if (result.diagnostics.empty()) result.diagnostics.append(module_checks);
    module.rego_v1 = st.v1;
    attach_annotations(module, result.diagnostics);
    if (result.diagnostics.empty()) result.module = std::move(module);
    return result;
}

namespace {

// OPA's parser also tries a query that starts `x := ...` as a rule, and reports that its
// value could not be read either: a second error at the same place.
void report_query_as_rule(ParseState& st, const char* p, Diagnostics& diagnostics) {
    if (diagnostics.size() != 1) return;
    const char* q = p;
    if (q >= st.end || !is_ident_start(*q)) return;
    const char* name_end = q;
    while (name_end < st.end && is_ident_char(*name_end)) ++name_end;
    const char* op = name_end;
    while (op < st.end && (*op == ' ' || *op == '\t')) ++op;
    if (st.end - op < 2 || op[0] != ':' || op[1] != '=') return;
    Diagnostic second = diagnostics.items()[0];
    second.hint.clear();
    second.message =
        second.message.substr(0, second.message.find(':')) +
        fmt::format(": expected rule value term (e.g., {} := <VALUE> {{ ... }})", std::string(q, name_end));
    diagnostics.add(std::move(second));
}

// gavel's reading of a query: its body, or its first syntax error (and what gavel adds to it).
QueryResult read_query(std::string text, const ParseOptions& options, std::string name) {
    QueryResult result;
    auto source = std::make_shared<Source>(std::move(name), std::move(text));
    result.source = source;
    ParseState st = make_state(*source, options, result.diagnostics);
    if (options.experimental_keywords) st.keywords.logic = true;
    SourceScan scan = scan_source(st, options.max_nesting);
    if (!report_scan_errors(st, scan, options)) return result;
    const char* p = st.begin;
    skip_blank(p, st.end);
    if (p == st.end) {
        st.error(p, "empty query");
        return result;
    }
    const char* query_start = p;
    if (!grammar::parse_body(p, st.end, st, result.body)) {
        report_syntax_error(st, p);
        if (!options.skip_rules) report_query_as_rule(st, query_start, result.diagnostics);
        return result;
    }
    if (!report_too_deep(st, find_too_deep(result.body, options.max_depth), options)) result.body.clear();
    skip_blank(p, st.end);
    if (p != st.end) {
        if (!st.furthest || st.furthest < p) st.furthest = p;
        report_syntax_error(st, p);
        if (!options.skip_rules) report_query_as_rule(st, query_start, result.diagnostics);
    }
    return result;
}

}  // namespace

QueryResult parse_query(std::string text, const ParseOptions& options, std::string name) {
    QueryResult result = read_query(std::move(text), options, std::move(name));
    adopt_opa_error_list(*result.source, result.diagnostics, options, options.skip_rules, false);
    return result;
}

TermResult parse_term(std::string text, const ParseOptions& options, std::string name) {
    TermResult result;
    auto source = std::make_shared<Source>(std::move(name), std::move(text));
    result.source = source;
    ParseState st = make_state(*source, options, result.diagnostics);
    SourceScan scan = scan_source(st, options.max_nesting);
    if (!report_scan_errors(st, scan, options)) return result;
    const char* p = st.begin;
    if (!grammar::parse_term(p, st.end, st, result.term)) {
        report_syntax_error(st, p);
        return result;
    }
    if (!report_too_deep(st, find_too_deep(result.term, options.max_depth), options)) result.term.reset();
    skip_blank(p, st.end);
    if (p != st.end) {
        if (!st.furthest || st.furthest < p) st.furthest = p;
        report_syntax_error(st, p);
    }
    return result;
}

}  // namespace gavel::lang
