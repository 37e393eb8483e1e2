#pragma once
// The mutable state one parse carries through the grammar: the source, the
// dialect and keywords in force, soft diagnostics, and the furthest point any
// terminal failed at (which is where a syntax error is reported).

#include <string>
#include <vector>

#include "lang/diagnostics.hpp"
#include "lang/location.hpp"

namespace gavel::lang {

struct KeywordSet {
    bool in = false;
    bool every = false;
    bool if_ = false;
    bool contains = false;
    bool logic = false;  // experimental `and` / `or`

    static KeywordSet all_v1() { return {true, true, true, true, false}; }
};

struct ParseState {
    const Source* source = nullptr;
    const char* begin = nullptr;
    const char* end = nullptr;

    bool v1 = true;                // rego.v1 dialect in force
    bool experimental = false;     // experimental keywords may be imported / used
    KeywordSet keywords = KeywordSet::all_v1();

    Diagnostics* diagnostics = nullptr;  // soft errors found while parsing

    // Furthest failure: the position and what was expected there.
    const char* furthest = nullptr;
    std::vector<std::string> expected;

    void fail_at(const char* where, const char* what) {
        if (!furthest || where > furthest) {
            furthest = where;
            expected.clear();
        }
        if (where == furthest && what && *what) {
            for (const auto& e : expected)
                if (e == what) return;
            expected.emplace_back(what);
        }
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

    void error(const char* where, std::string message) {
        if (diagnostics) diagnostics->add(location(where, where), codes::parse_error, std::move(message));
    }
};

}  // namespace gavel::lang
