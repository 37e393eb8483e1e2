#pragma once
// Where OPA's parser would say a node sits. OPA's formatter lays code out from
// its AST's locations: the row a node starts on and the source text it spans
// (`Location.Text`). gavel's locations mostly agree; where they differ this
// file computes OPA's: a parenthesised term's text includes its parentheses, an
// infix call's text starts at its left operand's, a rule head's text runs to the
// end of its value.

#include <cstdint>
#include <string_view>

#include "lang/ast.hpp"

namespace gavel::lang::format {

// A row and a byte range of the module's source. row < 0 is OPA's "negative
// row": a closing bracket that could not be found.
struct Span {
    int row = 0;
    int col = 0;
    uint32_t begin = 0;
    uint32_t end = 0;
    bool valid() const { return row != 0; }
};

class SourceSpans {
public:
    explicit SourceSpans(std::string_view source) : source_(source) {}

    std::string_view text(const Span& s) const {
        if (s.end <= s.begin || s.end > source_.size()) return {};
        return source_.substr(s.begin, s.end - s.begin);
    }
    std::string_view source() const { return source_; }

    Span of(const Location& loc) const;
    Span of(const Term& term) const;
    Span of(const Expr& expr) const;
    // A span from `begin` to `end` that starts where `at` starts (row and column).
    Span make(const Location& at, uint32_t begin, uint32_t end) const;

    // The offset just past the `)` closing a function head's arguments.
    uint32_t args_end(const RuleHead& head) const;
    // OPA's head location: from the name to the end of the value (or key, or arguments).
    Span head(const RuleHead& head, const Location& name) const;

    // OPA's closingLoc: the row of the `close` matching the first `open` in the
    // span's text (after skipping one skipOpen..skipClose group when skipOpen != 0).
    static int closing_row(char skip_open, char skip_close, char open, char close, const Span& span,
                           std::string_view text);
    int closing_row(char skip_open, char skip_close, char open, char close, const Span& span) const {
        return closing_row(skip_open, skip_close, open, close, span, text(span));
    }

private:
    std::string_view source_;

    uint32_t begin_of(const Term& term) const;
    uint32_t end_of(const Term& term) const;
    void widen_to_parens(const Term& term, uint32_t& begin, uint32_t& end) const;
};

}  // namespace gavel::lang::format
