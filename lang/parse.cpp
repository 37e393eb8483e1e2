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
#include "lang/root_document.hpp"

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
    st.contains_token = st.keywords.contains;
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

// What may begin OPA's next statement on the same line, at `q` after a statement that ended at
// `previous_end`: a term (the one before it read all it could, so an operator here would have
// been its own) that OPA's scanner reads as a token of its own, after a blank or touching the
// last one where the two cannot be one token (`g(a)h(b) := 1`, `p := true"a"`).
bool starts_statement(const char* previous_end, const char* q, const char* end) {
    // Touching, `[`, `.` and `(` continue the term before (OPA's parseTermFinish makes a ref or a
    // call of them: `package a` then `(x) := 1` on the next line is no statement of its own).
    if (q == previous_end && ((is_ident_char(q[-1]) && is_ident_char(*q)) || *q == '[' || *q == '.' || *q == '('))
        return false;
    const char c = *q;
    if (c == '.') return q + 1 < end && q[1] >= '0' && q[1] <= '9';  // a number (`.5`)
    return is_ident_start(c) || (c >= '0' && c <= '9') || c == '"' || c == '`' || c == '[' || c == '{' || c == '(';
}

// Where a statement may end: at a line break, a comment, or, as OPA's parser takes
// statements from a token stream, where another one starts on the same line
// (`package p x := 1`, `a b` under v0: two rule names OPA refuses each).
bool statement_ends_line(ParseState& st, const char*& p) {
    const char* q = p;
    bool semicolon = false;
    for (; q < st.end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == ';'); ++q) semicolon = semicolon || *q == ';';
    if (q == st.end || *q == '\n' || *q == '#') return true;
    if (!semicolon && p > st.begin && starts_statement(p, q, st.end) && !(st.furthest && st.furthest > q)) {
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

// A head whose ref goes on with a bracket or dot standing apart from the part before it (`p ["a"]`),
// or whose argument list stands apart from its name (`f (x)`): the ref up to there (the
// name alone; `p.q` of `p.q ["a"]`), or null when no part stands apart.
TermPtr spaced_head_start(const ParseState& st, const RuleHead& head) {
    if (!head.ref) return nullptr;
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    auto spaced = [&](const char* c) { return c > st.begin && blank(c[-1]); };
    if (head.ref->kind == TermKind::Ref)
        for (std::size_t i = 1; i < head.ref->elems.size(); ++i) {
            const char* c = st.begin + head.ref->elems[i]->loc.offset;
            while (c > st.begin && (c[-1] == ' ' || c[-1] == '\t')) --c;  // inside the brackets
            if (c == st.begin || (c[-1] != '[' && c[-1] != '.') || !spaced(c - 1)) continue;
            if (i == 1) return head.ref->elems[0];
            auto start = std::make_shared<Term>(*head.ref);
            start->elems.resize(i);
            const Location& last = start->elems.back()->loc;
            start->loc.length = last.offset + last.length - start->loc.offset;
            return start;
        }
    if (!head.has_args) return nullptr;
    const char* after = st.begin + head.ref->loc.offset + head.ref->loc.length;
    return after < st.end && blank(*after) ? head.ref : nullptr;
}

// The dialects differ in how a rule head reads. v0's `p[x] { ... }` is a
// partial set; v1 requires `if` before a body and `contains` for multi-value rules.
void normalize_rule(ParseState& st, Rule& rule) {
    RuleHead& head = rule.head;
    // Alone, a head with an empty argument list is the query `p()`, which OPA cannot make a rule.
    // (With a value or body OPA makes a rule of it with no arguments, which a call `p()` still
    // reaches where the type checker cannot tell its value's type; gavel keeps such a head a
    // function of no arguments, which gatekeeper-library's templates call.)
    if (head.has_args && head.args.empty() && !rule.is_default && rule.body.empty() && !head.value && !head.contains) {
        st.module_error(st.begin + rule.loc.offset, "rule argument list must take at least one argument");
        return;
    }
    // A head alone, as OPA reads it: a statement that is one term (ParseRuleFromExpr).
    if (!rule.is_default && rule.body.empty() && !head.value && !head.contains && !head.has_args) {
        std::size_t parts = head.ref->kind == TermKind::Ref ? head.ref->elems.size() : 1;
        if (parts == 1) {
            // `input` and `data` alone are refs in OPA's parser (parseTermFinish), not vars.
            st.module_error(st.begin + head.ref->loc.offset, is_root_document(*head.ref)
                                                                 ? "refs cannot be used for rule head"
                                                                 : "var cannot be used for rule name");
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
    // Right after an import OPA's parser reads a function named `contains`, which a rego.v1
    // module refuses (a v0 module keeps it; ParseState::contains_token), its missing `if` too.
    const bool named_contains =
        st.v1 && !st.contains_token && head.has_args && head.ref->kind == TermKind::Var && head.ref->text == "contains";
    if (named_contains) st.module_error(st.begin + rule.loc.offset, "contains keyword cannot be used for rule name");
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
    if (named_contains) return;
    // With `if` (a future keyword in v0), `p[x] if ...` is a single-value rule as in v1.
    // Without it a two-part head is a partial set, however written (`p[x]`, `p["x"]`,
    // `p.x`: OPA's parseRules back-compat); `p.x.y` or `p[x][y]` is a single value.
    if (!st.v1 && !rule.is_default && !rule.has_if && !head.contains && !head.value && !head.has_args &&
        head.ref->kind == TermKind::Ref && head.ref->elems.size() == 2) {
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
        // Without `if`, OPA's parseRules keys a two-part head (`p.q := 1 { ... }` has key "q"), so
        // its else is a multi-value rule's.
        else if (head.key || head.contains ||
                 (!rule.has_if && !head.has_args && head.ref->kind == TermKind::Ref && head.ref->elems.size() == 2))
            st.error(at, "else keyword cannot be used on multi-value rules");
    }
    if (rule.is_default && !rule.body.empty())
        st.error(st.begin + rule.loc.offset, "default rules must not have a body");
    // OPA's parseHead gives a head without a value `true` (`default p` is `default p := true`),
    // except a two-part ref without arguments, which would be a partial set's, and a `contains` head.
    if (rule.is_default && !head.value &&
        (head.contains || (!head.has_args && head.ref->kind == TermKind::Ref && head.ref->elems.size() == 2))) {
        st.error(st.begin + rule.loc.offset, "illegal default rule (must have a value)");
        return;
    }
    if (rule.is_default && !head.value) {
        head.value = make_bool(true, head.ref->loc);
        head.generated_value = true;
    }
    if (rule.is_default) validate_default(st, rule);
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
        if (op == "eq" || op == "assign") {
            // OPA makes a rule of `name := value`, `a.b := value` or `f(x) := value` only.
            TermKind lhs = t.elems.size() == 3 ? t.elems[1]->kind : TermKind::Var;
            if (lhs != TermKind::Var && lhs != TermKind::Ref && lhs != TermKind::Call)
                return fmt::format("{} cannot be used for rule name", value_name(lhs));
            return std::nullopt;
        }
        if (!find_builtin_decl(op)) return std::nullopt;
        return "rule name conflicts with built-in function";
    }
    // A ref from a composite value (`[1][0]`, `{"a": 1}.a`) is a term, no rule head.
    if (t.kind == TermKind::Ref && !t.elems.empty() && t.elems[0]->kind != TermKind::Var)
        return fmt::format("invalid rule head: {}", t.loc.text());
    if (t.kind == TermKind::Ref || t.kind == TermKind::Var) return std::nullopt;
    return fmt::format("{} cannot be used for rule name", value_name(t.kind));
}

// The call a statement assigns (`contains(x) := v`, `a - b = v`), or null.
const Term* assigned_call(const Expr& e) {
    if (e.kind != ExprKind::Term || !e.term || e.term->kind != TermKind::Call || e.term->elems.size() != 3)
        return nullptr;
    const std::string op = e.term->call_name();
    const Term& lhs = *e.term->elems[1];
    return (op == "eq" || op == "assign") && lhs.kind == TermKind::Call ? &lhs : nullptr;
}

// OPA's parser reads a statement that is no rule as a query (literals separated by `;`, to
// the end of the line); its parseModule then says why that query is no rule. That is an
// error of the module stage: the parse goes on after the statement. True when so read.
// `(x) := v`, `(a.b) = v`: a statement OPA's parser reads as a query, which its parseModule
// then makes a rule of (the parentheses are gone by then); gavel's rule grammar reads no
// parenthesised name. The rule, when the statement's one expression is such an assignment.
std::optional<Rule> rule_of_query_statement(const Body& body) {
    if (body.size() != 1 || !body.front().withs.empty() || body.front().negated ||
        body.front().kind != ExprKind::Term || !body.front().term)
        return std::nullopt;
    const Term& t = *body.front().term;
    std::string op = t.call_name();
    if ((op != "assign" && op != "eq") || t.elems.size() != 3) return std::nullopt;
    // `(f(x)) := 1`: a function, its arguments the call's.
    const bool call = t.elems[1]->kind == TermKind::Call && !t.elems[1]->elems.empty();
    const TermPtr& name = call ? t.elems[1]->elems[0] : t.elems[1];
    if (name->kind != TermKind::Var && name->kind != TermKind::Ref) return std::nullopt;
    if (name->kind == TermKind::Ref && (name->elems.empty() || name->elems[0]->kind != TermKind::Var))
        return std::nullopt;
    Rule rule;
    rule.loc = body.front().loc;
    rule.head.ref = name;
    rule.head.loc = t.elems[1]->loc;
    if (call) {
        rule.head.has_args = true;
        rule.head.args.assign(t.elems[1]->elems.begin() + 1, t.elems[1]->elems.end());
    }
    rule.head.value = t.elems[2];
    rule.head.assign = op == "assign" ? AssignOp::Assign : AssignOp::Unify;
    return rule;
}

bool read_as_query_statement(ParseState& st, const char* start, const char*& p, Rule* converted = nullptr) {
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
    // OPA's statement is one literal: another may follow on the same line (`false p`).
    const bool statement = read && (after == st.end || *after == '\n' || *after == '#' ||
                                    (q > start && starts_statement(q, after, st.end)));
    if (statement) why = query_rule_error(body);
    // `contains(x) := 1`: OPA's scanner takes `contains` for a name only before `.` or `[`, so
    // its parseModule makes a function rule of this query, which its v1 check refuses by name
    // (a v0 module keeps it).
    const Term* call = statement && !why && body.size() == 1 ? assigned_call(body.front()) : nullptr;
    const bool contains_call = call && st.contains_token && call->call_name() == "contains";
    if (contains_call && st.v1) why = "contains keyword cannot be used for rule name";
    // An infix call assigned (`a - b := 1`): OPA's parseModule makes the function `minus(a, b)`.
    const bool infix_head = call && !why && call->boolean;
    // What the rule grammar does not read: a parenthesised name, alone (`(x)`) or assigned.
    if (!why && statement && (*start == '(' || contains_call || infix_head)) {
        const Expr& e = body.front();
        if (body.size() == 1 && e.kind == ExprKind::Term && e.term && e.term->kind == TermKind::Var)
            why = "var cannot be used for rule name";
        else if (std::optional<Rule> rule = converted ? rule_of_query_statement(body) : std::nullopt) {
            *converted = std::move(*rule);
            p = q;
            return true;
        }
    }
    if (!why) {
        st.restore(std::move(failures));
        return false;
    }
    st.module_error(st.begin + body.front().loc.offset, std::move(*why));
    p = q;
    return true;
}

// OPA's parser reports more than the first syntax error: each attempt that failed on the way
// (a term, the list around it, the rule head that wanted it) adds its own, and its scanner
// reports a token it could not read before the parser calls it illegal. Where gavel's grammar
// found a syntax error, the list OPA's control flow gives (lang/opa_error_list.hpp) replaces
// gavel's; gavel's hint stays on the first error when both point at the same place. gavel's
// own keywords (`future.keywords.not`, experimental `and`/`or`) keep gavel's list, as does a
// text nested deeper than that reading follows.
void adopt_opa_error_list(const Source& source, Diagnostics& diagnostics, const ParseOptions& options, bool skip_rules,
                          bool gavel_keywords) {
    if (diagnostics.empty() || options.experimental_keywords || gavel_keywords) return;
    opa::ErrorListOptions list_options;
    list_options.v0 = options.v0_compatible;
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
    // The statement at `start` read as a query (true when so read; `next` is then after it), and
    // the rule OPA's parseModule makes of it kept (`contains(x) := 1` in v0, `a - b := 1`). The
    // errors from `errors_to` on go first, when given (the failed reading as a rule's).
    auto read_as_converted_query = [&](const char* start, const char*& next,
                                       std::optional<std::size_t> errors_to = std::nullopt) {
        const char* q = start;
        Rule converted;
        if (!read_as_query_statement(st, start, q, &converted)) return false;
        if (errors_to) result.diagnostics.truncate(*errors_to);
        next = q;
        if (converted.head.ref) {
            normalize_rule(st, converted);
            module.rules.push_back(std::move(converted));
        }
        return true;
    };
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
            const bool aliased = !imp.alias.empty();
            st.after_import = ok && !aliased;
            if (ok && check_import(st, imp, !options.v0_compatible)) {
                apply_import(st, imp);
                module.imports.push_back(std::move(imp));
            }
        } else {
            const bool first_after_import = st.after_import;
            st.contains_token = st.keywords.contains && !first_after_import;
            st.after_import = false;
            Rule rule;
            std::size_t errors_before = result.diagnostics.size();
            // OPA's parser reads `contains` as a name where a rule starts (`contains[x] { ... }`),
            // and its module stage refuses the keyword as a rule's whole name.
            ParseState::Failures before_rule = st.failures();
            // OPA scans an import's path without the future keywords, and so the token after it (its
            // parser's lookahead): right after an import `in`, `if` and `every` are names too
            // (ParseState::contains_token). Alone they are the var of that name (`import
            // future.keywords.in in`), which names no rule; `in := 1` is a rule, whose keyword name
            // a rego.v1 module refuses.
            // For that one token only: the rule's body reads the keyword again (`in := 1 if { 1 in [1] }`).
            const bool name_keyword =
                first_after_import && ((word == "in" && st.keywords.in) || (word == "if" && st.keywords.if_) ||
                                       (word == "every" && st.keywords.every));
            if (name_keyword) st.name_at = start;
            ok = grammar::parse_rule(p, st.end, st, rule);
            st.name_at = nullptr;
            const bool bare_head = !rule.is_default && rule.body.empty() && !rule.head.value && !rule.head.contains &&
                                   !rule.head.has_args;  // a var statement: normalize_rule says so
            // The keyword as a rule's whole name (`in := 1`; `in[x] := 1` and `in.x := 1` are refs).
            const bool keyword_name = rule.head.ref && rule.head.ref->kind == TermKind::Var;
            if (ok && name_keyword && st.v1 && !bare_head && keyword_name)
                st.module_error(start, fmt::format("{} keyword cannot be used for rule name", word));
            // `contains` alone or before a name (`contains p if { ... }`): OPA reads a statement of
            // the one term `contains` (a var, which is no rule), then the rule after it.
            const bool contains_word =
                !ok && st.keywords.contains && st.end - start > 8 && std::string_view(start, 8) == "contains";
            const char* after_contains = contains_word ? start + 8 : start;
            while (contains_word && after_contains < st.end && (*after_contains == ' ' || *after_contains == '\t'))
                ++after_contains;
            const bool word_alone = contains_word && (after_contains == st.end || *after_contains == '\n' ||
                                                      *after_contains == '\r' || *after_contains == '#' ||
                                                      (after_contains > start + 8 && is_ident_start(*after_contains)));
            // In a rego.v1 module no rule head starts with the keyword (OPA's parseRules reads a name
            // there only before `.` or `[`): the statement is a query with `contains` a term in it
            // (`contains == 1`, `contains in xs`), which OPA's parseModule may make a rule of. An
            // assignment (`contains := 1`) is left to the rule reading below, which refuses the name.
            const std::string_view rest(after_contains, static_cast<std::size_t>(st.end - after_contains));
            const bool assigned = rest.starts_with(":=") || (rest.starts_with("=") && !rest.starts_with("=="));
            const bool v1_query = contains_word && st.v1 && start[8] != '[' && start[8] != '.' && !assigned;
            if (v1_query) {
                result.diagnostics.truncate(errors_before);
                if (read_as_converted_query(start, p)) continue;
            }
            // Otherwise the term alone, then the next statement on its line (`contains "a"`).
            if (word_alone || v1_query) {
                result.diagnostics.truncate(errors_before);
                st.module_error(start, "var cannot be used for rule name");
                p = word_alone ? after_contains : start + 8;
                continue;
            }
            if (contains_word && !is_ident_char(start[8])) {
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
                    // A v0 module may name a rule so, unless a bare `contains` heads a body or `if`
                    // (OPA then reads statements, not a rule); v1 refuses the name of a rule, also
                    // of a partial set `contains[x] { ... }`.
                    const bool v1_refuses =
                        st.v1 && (parts < 2 || (parts == 2 && !head.value && !head.has_args && !rule.has_if));
                    const bool v0_refuses = !st.v1 && parts < 2 && (rule.has_if || !rule.body.empty());
                    if (v1_refuses || v0_refuses)
                        st.module_error(start, "contains keyword cannot be used for rule name");
                } else {
                    result.diagnostics.truncate(errors);
                    st.restore(std::move(failures));
                }
            }
            // OPA reads a statement with no `if`, body or `contains` as a query, where a call's
            // `(` and a ref's `[` follow what they continue without space: `f (x) := 1` is OPA's
            // two statements `f` and `(x) := 1`, `p ["a"] := 1` the statements `p` and
            // `["a"] := 1` (with `if` or a body both are rules there too).
            TermPtr spaced_start = ok && !rule.is_default && !rule.has_if && rule.body.empty() && !rule.head.contains
                                       ? spaced_head_start(st, rule.head)
                                       : nullptr;
            if (spaced_start) {
                Rule name_alone;
                name_alone.loc = rule.loc;
                name_alone.head.ref = std::move(spaced_start);
                name_alone.head.loc = name_alone.head.ref->loc;
                name_alone.loc.length = name_alone.head.loc.offset + name_alone.head.loc.length - rule.loc.offset;
                p = st.begin + name_alone.head.loc.offset + name_alone.head.loc.length;
                rule = std::move(name_alone);
                st.restore(std::move(before_rule));  // what the rule grammar tried past `f` is moot
            }
            // `contains(x) ...`: no rule head starts with the keyword `contains` in OPA's parser,
            // so the statement is a query of one literal (`contains(x) := 1`), and what follows
            // on its line (`if`, a body) is the next statement.
            if (ok && st.contains_token && !rule.is_default && rule.head.has_args && rule.head.ref &&
                rule.head.ref->kind == TermKind::Var && rule.head.ref->text == "contains") {
                st.restore(std::move(before_rule));
                result.diagnostics.truncate(errors_before);
                if (read_as_converted_query(start, p)) continue;  // a v0 module's function named `contains`
                ok = false;
            }
            // An error the grammar reported itself (an else where none may stand, too many
            // else branches) ends the parse there, as OPA's parseRules does.
            // A string the scanner could not end is also the parser's "illegal token" there.
            if (ok && result.diagnostics.size() > errors_before) {
                if (st.reason && st.furthest && *st.reason == ParseState::kIllegalToken) report_syntax_error(st, start);
                break;
            }
            if (ok) {
                // `x := 1 with input as 2` is no rule: perhaps a query OPA reads; so is a name
                // before `in` (`input.x in {1}`: OPA's parseRules gives up there, and the query is a call).
                const char* next = p;
                while (next < st.end && (*next == ' ' || *next == '\t')) ++next;
                std::string_view after_rule = next_word(next, st.end);
                bool bare_head = !rule.head.value && !rule.head.contains && !rule.head.has_args && rule.body.empty() &&
                                 !rule.is_default;
                bool query = after_rule == "with" || (after_rule == "in" && st.keywords.in && bare_head);
                if (const char* q = start; query && read_as_query_statement(st, start, q)) {
                    p = q;
                    continue;
                }
                // A rule is judged as a whole only once its statement ended where it should.
                std::size_t before = result.diagnostics.size();
                if (!statement_ends_line(st, p)) {
                    // Not a rule after all (`x := 1 with input as 2`): perhaps a query OPA reads,
                    // or the function it makes of `a - b := 1` (minus(a, b)).
                    if (read_as_converted_query(start, p, before)) continue;
                    break;  // OPA stops at the first statement it cannot read
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
        if (!ok && word != "import" && word != "package" && read_as_converted_query(start, p)) continue;
        if (!ok) {
            report_syntax_error(st, start);
            break;
        }
        if (!statement_ends_line(st, p)) break;
    }
    if (first == FirstStatement::Reading) module_checks.truncate(checks_before_first);
    if (!have_package) st.error(st.begin, "package expected");
    adopt_opa_error_list(*source, result.diagnostics, options, false, st.keywords.not_block || st.keywords.logic);
    // OPA's parser reads the METADATA blocks last: their errors are its own, after its syntax errors.
    attach_annotations(module, result.diagnostics);
    // OPA's parseModule runs only on statements and blocks that all parsed.
    if (result.diagnostics.empty()) result.diagnostics.append(module_checks);
    module.rego_v1 = st.v1;
    if (result.diagnostics.empty()) result.module = std::move(module);
    return result;
}

namespace {

// gavel's reading of a query: its body, or its first syntax error.
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
    if (!grammar::parse_body(p, st.end, st, result.body)) {
        report_syntax_error(st, p);
        return result;
    }
    if (!report_too_deep(st, find_too_deep(result.body, options.max_depth), options)) result.body.clear();
    skip_blank(p, st.end);
    if (p != st.end) {
        if (!st.furthest || st.furthest < p) st.furthest = p;
        report_syntax_error(st, p);
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
