#include "lang/normalize_module.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "lang/copy.hpp"
#include "lang/ground.hpp"
#include "lang/walk.hpp"

namespace gavel::lang {

namespace {

bool is_wildcard(const Term& t) { return t.kind == TermKind::Var && t.text == "_"; }

// Names each `_` it is shown, in the order it is shown them: OPA's parser
// names them as it reads them.
class WildcardNamer {
public:
    void name(Term& t) {
        walk_terms(t, [this](Term& x) {
            if (is_wildcard(x)) x.text = fresh();
            return false;
        });
    }
    void name(const TermPtr& t) {
        if (t) name(*t);
    }
    void name(Body& b) {
        walk_terms_in_body(b, [this](Term& x) {
            if (is_wildcard(x)) x.text = fresh();
            return false;
        });
    }
    void name(RuleHead& h) {
        name(h.ref);
        for (auto& a : h.args) name(a);
        name(h.key);
        name(h.value);
    }
    std::string fresh() { return '$' + std::to_string(next_++); }

private:
    std::size_t next_ = 0;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Where a body written in braces `{ ... }` starts and ends, found around its literals.
Location brace_location(const Body& body) {
    if (body.empty()) return Location{};
    Location loc = body.front().loc;
    if (!loc.source) return loc;
    const std::string& text = loc.source->text();
    std::size_t start = loc.offset;
    while (start > 0 && is_space(text[start - 1])) --start;
    if (start == 0 || text[start - 1] != '{') return loc;
    --start;
    const Location& last = body.back().loc;
    std::size_t end = std::min<std::size_t>(text.size(), last.offset + last.length);
    while (end < text.size() && text[end] != '}') ++end;
    if (end < text.size()) ++end;
    auto [line, col] = loc.source->line_col(start);
    loc.offset = static_cast<uint32_t>(start);
    loc.length = static_cast<uint32_t>(end - start);
    loc.line = line;
    loc.col = col;
    return loc;
}

// OPA's setLocRecursive: every node of a term, the bodies it holds included.
void relocate(Term& t, const Location& loc) {
    walk_terms(t, [&loc](Term& x) {
        x.loc = loc;
        if (x.body)
            walk_exprs(*x.body, [&loc](Expr& e) {
                e.loc = loc;
                for (auto& w : e.withs) w.loc = loc;
                return false;
            });
        return false;
    });
}

void ensure_body(Rule& r) {
    if (!r.body.empty()) return;
    r.body.push_back(make_term_expr(make_bool(true, r.loc), r.loc));
    r.generated_body = true;
}

void ensure_value(RuleHead& h, const Location& loc) {
    if (h.value || h.key) return;
    h.value = make_bool(true, loc);
    h.generated_value = true;
}

// `p[x] if ...`: OPA's parser reads a single-value rule with a two-part ref,
// and gives the value it adds the head's location.
bool is_bracket_if(const Rule& r) {
    const RuleHead& h = r.head;
    return r.has_if && !h.contains && !h.key && !r.is_default && h.args.empty() && h.ref &&
           h.ref->kind == TermKind::Ref && h.ref->elems.size() == 2;
}

// A copy of `head` for a clause of its own, the arguments written `_` renamed afresh.
RuleHead copy_for_clause(const RuleHead& head, const std::vector<bool>& wildcard_args, WildcardNamer& names) {
    RuleHead out = copy_head(head);
    for (std::size_t i = 0; i < out.args.size() && i < wildcard_args.size(); ++i)
        if (wildcard_args[i]) out.args[i] = make_var(names.fresh(), out.args[i]->loc);
    return out;
}

void normalize_else_chain(Rule& rule, const std::vector<bool>& wildcard_args, WildcardNamer& names) {
    for (Rule* e = rule.else_rule.get(); e; e = e->else_rule.get()) {
        if (!e->head.ref) {  // as parsed: the clause has only its value
            RuleHead own = std::move(e->head);
            e->head = copy_for_clause(rule.head, wildcard_args, names);
            e->head.loc = own.loc.source ? own.loc : e->loc;
            e->head.value = std::move(own.value);
            e->head.generated_value = false;
            if (e->head.value) e->head.assign = own.assign;
            else ensure_value(e->head, Location{});
        }
        names.name(e->head.value);
        ensure_body(*e);
        names.name(e->body);
    }
}

}  // namespace

void name_wildcards(Body& body) { WildcardNamer().name(body); }

void normalize_module(Module& m) {
    WildcardNamer names;
    names.name(m.package.path);
    for (auto& imp : m.imports) names.name(imp.path);

    std::vector<Rule> rules;
    rules.reserve(m.rules.size());
    std::vector<std::size_t> new_index;  // a parsed rule's position once its chained bodies are rules of their own
    for (auto& parsed : m.rules) {
        std::vector<Body> chained = std::move(parsed.extra_bodies);
        parsed.extra_bodies.clear();
        const std::size_t first = rules.size();
        new_index.push_back(first);
        Rule& rule = rules.emplace_back(std::move(parsed));  // `rule` and `head` only until chained rules are added
        RuleHead& head = rule.head;
        std::vector<bool> wildcard_args;
        for (const auto& a : head.args) wildcard_args.push_back(a && is_wildcard(*a));

        if (!chained.empty() && !rule.body.empty()) {  // the rule's text ends with its own body
            Location own = brace_location(rule.body);
            if (own.offset + own.length > rule.loc.offset) rule.loc.length = own.offset + own.length - rule.loc.offset;
        }
        ensure_value(head, is_bracket_if(rule) ? head.loc : Location{});
        names.name(head);
        ensure_body(rule);
        names.name(rule.body);
        normalize_else_chain(rule, wildcard_args, names);

        for (auto& body : chained) {
            names.name(body);
            Rule next;
            next.loc = brace_location(body);
            next.has_if = rules[first].has_if;
            next.head = copy_for_clause(rules[first].head, wildcard_args, names);
            next.head.loc = next.loc;
            for (auto& a : next.head.args) relocate(*a, next.loc);
            if (next.head.key) relocate(*next.head.key, next.loc);
            if (next.head.value) relocate(*next.head.value, next.loc);
            next.body = std::move(body);
            rules.push_back(std::move(next));
        }
    }
    m.rules = std::move(rules);
    for (auto& a : m.annotations)
        if (a.rule_index < new_index.size()) a.rule_index = new_index[a.rule_index];
}

}  // namespace gavel::lang
