#pragma once
// The mutable state one parse carries through the grammar: the source, the
// dialect and keywords in force, soft diagnostics, and the furthest point any
// terminal failed at (which is where a syntax error is reported).

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/ast.hpp"
#include "lang/diagnostics.hpp"
#include "lang/location.hpp"

namespace gavel::lang {

struct KeywordSet {
    bool in = false;
    bool every = false;
    bool if_ = false;
    bool contains = false;
    bool logic = false;      // experimental `and` / `or`
    bool not_block = false;  // `import future.keywords.not`: `not { body }` negates a body

    static KeywordSet all_v1() { return {true, true, true, true, false, false}; }
};

// A term parsed at some position: the term (null if none parses there) and where it ended.
struct ParsedTerm {
    TermPtr term;
    const char* end = nullptr;
};

struct ParseState {
    const Source* source = nullptr;
    const char* begin = nullptr;
    const char* end = nullptr;

    bool v1 = true;  // rego.v1 dialect in force
    // Whether OPA's scanner reads `contains` at this statement's start as the keyword (then no
    // rule is named `contains` there): where it is a keyword, except right after an import,
    // whose path and the token after it OPA scans without the future keywords.
    bool contains_token = true;
    bool after_import = false;  // the statement being read follows an import without alias
    // A keyword read as a name at this one position (OPA scanned the token after an import
    // without the future keywords), as a keyword everywhere else.
    const char* name_at = nullptr;
    bool experimental = false;  // experimental keywords may be imported / used
    // The declaration being read names two variables before its `in` (`some k, v in xs`): that
    // `in` is the keyword even directly before `[`, as OPA's parseTermIn reads key-value
    // membership (set by the grammar just before it reads the `in`).
    bool in_after_pair = false;
    KeywordSet keywords = KeywordSet::all_v1();

    std::size_t max_else_branches = 10000;  // else clauses of one rule

    Diagnostics* diagnostics = nullptr;  // soft errors found while parsing

    // Furthest failure: the position and what was expected there, or why the
    // token there is wrong (`reason`, which then says more than `expected`).
    const char* furthest = nullptr;
    std::vector<std::string_view> expected;  // views of the grammar's static token texts
    std::optional<std::string> reason;

    // Terms by start position, within one statement: deciding between a
    // comprehension and a literal reads the first term twice, as in OPA's parser,
    // and nested brackets would make that exponential without this memo.
    std::unordered_map<const char*, ParsedTerm> terms;

    // Where literals start, within one statement: OPA reads a keyword directly followed by `.`
    // as a name (`not.x`, `if.y`) only there (and in rule heads, after dots, in paths).
    std::unordered_set<const char*> literal_starts;

    void fail_at(const char* where, const char* what) {
        if (!furthest || where > furthest) {
            furthest = where;
            expected.clear();
            reason.reset();
        }
        if (where == furthest && what && *what) {
            // Every alternative tried at one place fails here: keep this cheap (the
            // same literal is usually the same pointer; its length is taken once, not once
            // per text listed, which was a seventh of all parsing).
            for (const auto& e : expected)
                if (e.data() == what) return;
            const std::string_view text(what);
            for (const auto& e : expected)
                if (e == text) return;
            expected.emplace_back(text);
        }
    }

    // The reason a token the scanner could not read gives: reported as OPA's "illegal token".
    static constexpr std::string_view kIllegalToken = "illegal token";

    // The token at `where` cannot stand there, for the reason given ("" for no more to say).
    void fail_because(const char* where, std::string why) {
        if (furthest && where < furthest) return;
        if (!furthest || where > furthest) expected.clear();
        furthest = where;
        reason = std::move(why);
    }

    // The furthest failure so far, to go back to when a parse that went further is set aside.
    struct Failures {
        const char* furthest;
        std::vector<std::string_view> expected;
        std::optional<std::string> reason;
    };
    Failures failures() const { return {furthest, expected, reason}; }
    void restore(Failures f) {
        furthest = f.furthest;
        expected = std::move(f.expected);
        reason = std::move(f.reason);
    }

    // A fresh statement: failures and memoised terms of the previous one no longer apply.
    void begin_statement() {
        furthest = nullptr;
        expected.clear();
        reason.reset();
        terms.clear();
        literal_starts.clear();
    }

    Location location(const char* from, const char* to) const {
        Location loc;
        loc.source = source;
        loc.offset = static_cast<uint32_t>(from - begin);
        loc.length = static_cast<uint32_t>(to - from);
        auto [line, col] = source->line_col(loc.offset);
        loc.line = line;
        loc.col = col;
        return loc;
    }

    // Where the errors of OPA's second stage go (parseModule's, after every statement parsed:
    // a missing `if` or `contains`, a rule name that is no var, a missing package): OPA reports
    // them only when the parse found no syntax error. Null: with the others.
    Diagnostics* module_checks = nullptr;

    void module_error(const char* where, std::string message, std::string hint = {}) {
        Diagnostics* syntax = diagnostics;
        if (module_checks) diagnostics = module_checks;
        error(where, std::move(message), std::move(hint));
        diagnostics = syntax;
    }

    void error(const char* where, std::string message, std::string hint = {}) {
        if (!diagnostics) return;
        Location loc = location(where, where);
        // OPA's scanner counts the end of the input's column from 0: "x := " ends at 1:5,
        // "a\n" at 2:0.
        if (where >= end && loc.col > 0) --loc.col;
        diagnostics->add(loc, codes::parse_error, std::move(message));
        diagnostics->back().hint = std::move(hint);
    }
};

}  // namespace gavel::lang
