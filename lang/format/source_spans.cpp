#include "lang/format/source_spans.hpp"

#include <algorithm>
#include <vector>

namespace gavel::lang::format {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_infix_call(const Term& t) { return t.kind == TermKind::Call && t.boolean && t.elems.size() >= 3; }

}  // namespace

Span SourceSpans::of(const Location& loc) const {
    return Span{static_cast<int>(loc.line), static_cast<int>(loc.col), loc.offset, loc.offset + loc.length};
}

Span SourceSpans::make(const Location& at, uint32_t begin, uint32_t end) const {
    return Span{static_cast<int>(at.line), static_cast<int>(at.col), begin, end};
}

// OPA keeps a parenthesised term's row and column but widens its text over the
// parentheses, one pair at a time.
void SourceSpans::widen_to_parens(const Term& term, uint32_t& begin, uint32_t& end) const {
    for (int i = 0; i < term.parens; ++i) {
        uint32_t b = begin;
        while (b > 0 && is_blank(source_[b - 1])) --b;
        uint32_t e = end;
        while (e < source_.size() && is_blank(source_[e])) ++e;
        if (b == 0 || source_[b - 1] != '(' || e >= source_.size() || source_[e] != ')') return;
        begin = b - 1;
        end = e + 1;
    }
}

// An infix call's text starts where its left operand's does (parentheses
// included); the chain of left operands is walked in a loop, not recursively.
uint32_t SourceSpans::begin_of(const Term& term) const {
    std::vector<const Term*> chain{&term};
    while (is_infix_call(*chain.back())) chain.push_back(chain.back()->elems[1].get());
    uint32_t begin = chain.back()->loc.offset;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        uint32_t end = (*it)->loc.offset + (*it)->loc.length;
        uint32_t b = begin;
        widen_to_parens(**it, b, end);
        begin = b;
    }
    return begin;
}

uint32_t SourceSpans::end_of(const Term& term) const {
    std::vector<const Term*> chain{&term};
    while (is_infix_call(*chain.back())) chain.push_back(chain.back()->elems.back().get());
    uint32_t end = chain.back()->loc.offset + chain.back()->loc.length;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        uint32_t begin = (*it)->loc.offset;
        uint32_t e = end;
        widen_to_parens(**it, begin, e);
        end = e;
    }
    return end;
}

Span SourceSpans::of(const Term& term) const {
    if (!term.loc.source) return {};
    return make(term.loc, begin_of(term), end_of(term));
}

Span SourceSpans::of(const Expr& expr) const {
    uint32_t begin = expr.loc.offset;
    uint32_t end = expr.loc.offset + expr.loc.length;
    if (expr.term && expr.term->loc.source) {
        begin = std::min(begin, begin_of(*expr.term));
        end = std::max(end, end_of(*expr.term));
    }
    if (!expr.withs.empty() && expr.withs.back().value) end = std::max(end, end_of(*expr.withs.back().value));
    Span s{static_cast<int>(expr.loc.line), static_cast<int>(expr.loc.col), begin, end};
    if (begin < expr.loc.offset && expr.loc.source) {
        auto [line, col] = expr.loc.source->line_col(begin);
        s.row = static_cast<int>(line);
        s.col = static_cast<int>(col);
    }
    return s;
}

uint32_t SourceSpans::args_end(const RuleHead& head) const {
    uint32_t p = head.ref ? end_of(*head.ref) : 0;
    if (!head.args.empty()) p = std::max(p, end_of(*head.args.back()));
    while (p < source_.size() && source_[p] != ')') {
        if (source_[p] == '#') {
            while (p < source_.size() && source_[p] != '\n') ++p;
            continue;
        }
        ++p;
    }
    return p < source_.size() ? p + 1 : p;
}

Span SourceSpans::head(const RuleHead& head, const Location& name) const {
    uint32_t end = name.offset + name.length;
    if (head.ref) end = std::max(end, end_of(*head.ref));
    if (head.has_args) end = std::max(end, args_end(head));
    if (head.key) end = std::max(end, end_of(*head.key));
    if (head.value) end = std::max(end, end_of(*head.value));
    return make(name, name.offset, end);
}

int SourceSpans::closing_row(char skip_open, char skip_close, char open, char close, const Span& span,
                             std::string_view text) {
    std::size_t i = 0;
    int offset = 0;
    if (skip_open != 0) {
        // OPA's skipPast: to the first skip_open, then past its matching skip_close.
        for (; i < text.size(); ++i)
            if (text[i] == skip_open) break;
        int state = 1;
        while (state > 0) {
            ++i;
            if (i >= text.size()) break;
            char c = text[i];
            if (c == skip_open) ++state;
            else if (c == skip_close) --state;
            else if (c == '\n') ++offset;
        }
    }
    for (; i < text.size(); ++i)
        if (text[i] == open) break;
    if (i >= text.size()) return -1;
    int state = 1;
    while (state > 0) {
        ++i;
        if (i >= text.size()) return -1;
        char c = text[i];
        if (c == open) ++state;
        else if (c == close) --state;
        else if (c == '\n') ++offset;
    }
    return span.row + offset;
}

}  // namespace gavel::lang::format
