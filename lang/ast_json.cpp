// The AST printed as `opa parse` prints it: JSON (`--format json`) and the
// indented tree (`--format pretty`).
//
// Shapes follow OPA 1.x (ast/policy.go, ast/term.go, ast/annotations.go MarshalJSON):
//  - Go's encoding/json writes map-backed nodes with their keys sorted, so Term is
//    {location?, type, value}, Expr {index, location?, negated?, terms, with?}, Rule
//    {annotations?, body, default?, else?, head, location?}, Package {location?, path},
//    Import {alias?, location?, path}, With {location?, target, value}, SomeDecl
//    {location?, symbols}, Every {body, domain, key, location?, value} (key is null when absent).
//  - Head is a struct: {location?, ref, key?, value?, name?, args?, assign?}.
//  - Module is a struct: {package, imports?, annotations?, rules?, comments?}; comments are
//    Go structs without tags: {"Location": {...}, "Text": <base64>}.
//  - Values: null is `{}` (Go's encoding of struct{}); numbers are the literal as written;
//    refs, arrays and calls are arrays of terms; sets and objects are sorted in OPA's term
//    order with duplicates removed (objects: [[key, value], ...]); comprehensions are
//    {term, body} / {key, value, body}; template strings {parts, multi_line}, where text
//    parts are string terms and `{...}` parts are exprs.
//  - An expression that is a call prints its terms as an array (operator first); `some`
//    prints a SomeDecl ({"symbols": [...]}, `some x in xs` as the symbol
//    call internal.member_2(x, xs)); `every` prints an Every.
//  - What the OPA parser adds is added here too: the package path is rooted at `data`; a rule
//    without a body gets the body `true`; a rule without a value gets the value `true`; v0
//    `p[x] { }` is name p, key x; `p[x] if` gets key x; else clauses carry a copy of the
//    first head; `p { a } { b }` becomes two rules; wildcards `_` are renamed `$0`, `$1` ...
//    in source order.
//  - Locations are {file, text?, row, col}; `text` (base64 of the node's source text) only
//    with AstJsonOptions::location_text, as `opa parse --json-include locations` does.
// Shapes chosen here because OPA had none to copy (said again where they are printed):
// template strings sort between strings and vars; the experimental `and`/`or` literals print
// as {"type": "and"|"or", "lhs": body, "rhs": body, "explicit_lhs"?, "explicit_rhs"?},
// folded to the left.

#include "lang/ast_json.hpp"

#include "support/base64.hpp"
#include "lang/go_quote.hpp"
#include "lang/json_tree_yaml.hpp"
#include "lang/yaml_node.hpp"
#include "support/json_string.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

namespace gavel::lang {

namespace {

// ---------------------------------------------------------------------------
// Text helpers

// A JSON string as Go's encoding/json writes it (HTML-safe: <, > and & escaped).
void append_json_string(std::string& out, std::string_view s) {
    support::append_json_string(out, s, {.escape_html = true});
}

// Re-indents compact JSON as Go's json.MarshalIndent(v, "", "  ") does.
std::string indent_json(std::string_view in) {
    std::string out;
    out.reserve(in.size() * 2);
    int depth = 0;
    auto newline = [&] {
        out.push_back('\n');
        out.append(static_cast<std::size_t>(depth) * 2, ' ');
    };
    for (std::size_t i = 0; i < in.size(); ++i) {
        char c = in[i];
        if (c == '"') {
            std::size_t j = i + 1;
            while (j < in.size() && in[j] != '"') j += in[j] == '\\' ? 2 : 1;
            out.append(in.substr(i, j - i + 1));
            i = j;
        } else if (c == '{' || c == '[') {
            out.push_back(c);
            if (i + 1 < in.size() && (in[i + 1] == '}' || in[i + 1] == ']')) {
                out.push_back(in[++i]);
            } else {
                ++depth;
                newline();
            }
        } else if (c == '}' || c == ']') {
            --depth;
            newline();
            out.push_back(c);
        } else if (c == ',') {
            out.push_back(',');
            newline();
        } else if (c == ':') {
            out += ": ";
        } else {
            out.push_back(c);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// A small JSON writer: commas and key/value separators are its business.

class JsonWriter {
public:
    std::string out;

    void begin_object() {
        separate();
        out.push_back('{');
        first_.push_back(true);
    }
    void end_object() {
        out.push_back('}');
        first_.pop_back();
    }
    void begin_array() {
        separate();
        out.push_back('[');
        first_.push_back(true);
    }
    void end_array() {
        out.push_back(']');
        first_.pop_back();
    }
    void key(std::string_view k) {
        separate();
        append_json_string(out, k);
        out.push_back(':');
        after_key_ = true;
    }
    void string(std::string_view s) {
        separate();
        append_json_string(out, s);
    }
    void raw(std::string_view s) {
        separate();
        out.append(s);
    }
    void boolean(bool b) { raw(b ? "true" : "false"); }
    void integer(long long n) { raw(fmt::format("{}", n)); }
    void null() { raw("null"); }

private:
    std::vector<bool> first_;
    bool after_key_ = false;

    void separate() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (first_.empty()) return;
        if (!first_.back()) out.push_back(',');
        first_.back() = false;
    }
};

// ---------------------------------------------------------------------------
// OPA's order of terms (ast/compare.go), used to sort sets and object keys.

struct Decimal {
    int sign = 0;        // -1, 0, 1
    std::string digits;  // significant digits, no leading or trailing zeros
    long long exp = 0;   // value = 0.digits * 10^exp
};

Decimal parse_decimal(std::string_view s) {
    Decimal d;
    std::size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
    std::string digits;
    long long point = 0;
    bool seen_point = false;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            digits.push_back(c);
            if (!seen_point) ++point;
        } else if (c == '.') {
            seen_point = true;
        } else {
            break;
        }
    }
    long long e = 0;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < s.size() && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
            if (e < 1000000000000LL) e = e * 10 + (s[i] - '0');
        }
        if (eneg) e = -e;
    }
    std::size_t lead = 0;
    while (lead < digits.size() && digits[lead] == '0') ++lead;
    digits.erase(0, lead);
    point -= static_cast<long long>(lead);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    if (digits.empty()) return d;
    d.sign = negative ? -1 : 1;
    d.digits = std::move(digits);
    d.exp = point + e;
    return d;
}

int compare_numbers(std::string_view a, std::string_view b) {
    Decimal x = parse_decimal(a), y = parse_decimal(b);
    if (x.sign != y.sign) return x.sign < y.sign ? -1 : 1;
    if (x.sign == 0) return 0;
    int magnitude = 0;
    if (x.exp != y.exp) {
        magnitude = x.exp < y.exp ? -1 : 1;
    } else {
        int c = x.digits.compare(y.digits);  // no trailing zeros: plain comparison is numeric
        magnitude = c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    return x.sign * magnitude;
}

int kind_order(TermKind k) {
    switch (k) {
        case TermKind::Null: return 0;
        case TermKind::Boolean: return 1;
        case TermKind::Number: return 2;
        case TermKind::String: return 3;
        case TermKind::Template: return 4;  // our choice: OPA's sort order for template strings is not known to us
        case TermKind::Var: return 5;
        case TermKind::Ref: return 6;
        case TermKind::Array: return 7;
        case TermKind::Object: return 8;
        case TermKind::Set: return 9;
        case TermKind::ArrayComprehension: return 10;
        case TermKind::ObjectComprehension: return 11;
        case TermKind::SetComprehension: return 12;
        case TermKind::Call: return 13;
    }
    return 14;
}

int sign_of(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// ---------------------------------------------------------------------------
// The module as OPA's parser leaves it: normalised heads, generated bodies and
// values, wildcard names. Built once, printed by both printers.

struct NHead {
    Location loc;
    std::vector<TermPtr> ref;
    TermPtr key;
    TermPtr value;
    std::string name;
    std::vector<TermPtr> args;
    bool assign = false;
};

struct NRule {
    Location loc;
    bool is_default = false;
    NHead head;
    std::shared_ptr<const Body> body;
    // The else clauses, in order. OPA nests each in the one before; a flat list
    // lets the printers (and the destructor) go through thousands of them in a loop.
    std::vector<NRule> else_chain;
    std::vector<const Annotation*> annotations;
};

struct NModule {
    Location package_loc;
    std::vector<TermPtr> package_path;
    std::vector<NRule> rules;
};

bool is_wildcard(const Term& t) { return t.kind == TermKind::Var && t.text == "_"; }

class Normalizer {
public:
    std::unordered_map<const Term*, std::string> names;  // wildcard -> $N

    NModule build(const Module& m) {
        NModule n;
        n.package_loc = m.package.loc;
        if (m.package.path) {
            const auto& p = *m.package.path;
            std::vector<TermPtr> parts = p.kind == TermKind::Ref ? p.elems : std::vector<TermPtr>{m.package.path};
            if (!parts.empty() && parts[0]->kind == TermKind::Var && parts[0]->text != "data") {
                const Location& first = parts[0]->loc;
                n.package_path.push_back(make_var("data", first));
                n.package_path.push_back(make_string(parts[0]->text, first));
                n.package_path.insert(n.package_path.end(), parts.begin() + 1, parts.end());
            } else {
                n.package_path = parts;
            }
        }
        for (const auto& t : n.package_path) number(t);
        for (const auto& imp : m.imports) number(imp.path);
        for (std::size_t i = 0; i < m.rules.size(); ++i) {
            std::size_t first = n.rules.size();
            build_rule(m.rules[i], n.rules);
            for (const auto& a : m.annotations)
                if (!a.on_package && a.rule_index == i) n.rules[first].annotations.push_back(&a);
        }
        return n;
    }

    void number(const TermPtr& t) {
        if (!t) return;
        if (is_wildcard(*t)) {
            if (!names.count(t.get())) names[t.get()] = fmt::format("${}", counter_++);
            return;
        }
        for (const auto& e : t->elems) number(e);
        for (const auto& [k, v] : t->items) {
            number(k);
            number(v);
        }
        number(t->key);
        number(t->value);
        if (t->body) number(*t->body);
    }

    void number(const Body& body) {
        for (const auto& e : body) number(e);
    }

    void number(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Term: number(e.term); break;
            case ExprKind::Some:
                for (const auto& v : e.some.vars) number(v);
                number(e.some.in_call);
                break;
            case ExprKind::Every:
                number(e.every.key);
                number(e.every.value);
                number(e.every.domain);
                if (e.every.body) number(*e.every.body);
                break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                for (const auto& c : e.children) number(c);
                break;
            case ExprKind::Block:
                if (e.body) number(*e.body);
                break;
        }
        for (const auto& w : e.withs) {
            number(w.target);
            number(w.value);
        }
    }

private:
    int counter_ = 0;

    static TermPtr make_true(const Location& loc) {
        auto t = make_term(TermKind::Boolean, loc);
        t->boolean = true;
        return t;
    }

    static std::shared_ptr<const Body> true_body(const Location& loc) {
        auto body = std::make_shared<Body>();
        Expr e;
        e.loc = loc;
        e.term = make_true(loc);
        body->push_back(std::move(e));
        return body;
    }

    static std::shared_ptr<const Body> alias(const Body& body) {
        return std::shared_ptr<const Body>(std::shared_ptr<void>(), &body);
    }

    static bool is_ground(const TermPtr& t) {
        if (!t) return true;
        switch (t->kind) {
            case TermKind::Null:
            case TermKind::Boolean:
            case TermKind::Number:
            case TermKind::String: return true;
            case TermKind::Var: return false;
            case TermKind::Ref:
                for (std::size_t i = 1; i < t->elems.size(); ++i)
                    if (!is_ground(t->elems[i])) return false;
                return true;
            case TermKind::Array:
            case TermKind::Set:
            case TermKind::Call:
                for (const auto& e : t->elems)
                    if (!is_ground(e)) return false;
                return true;
            case TermKind::Object:
                for (const auto& [k, v] : t->items)
                    if (!is_ground(k) || !is_ground(v)) return false;
                return true;
            default: return false;  // comprehensions and templates: treated as holding vars
        }
    }

    // A fresh wildcard in place of a `_` argument, as OPA's parser makes for else
    // clauses and chained bodies.
    std::vector<TermPtr> regenerate_args(const std::vector<TermPtr>& args) {
        std::vector<TermPtr> out;
        for (const auto& a : args) {
            if (a && is_wildcard(*a)) {
                auto fresh = make_var("_", a->loc);
                number(fresh);
                out.push_back(fresh);
            } else {
                out.push_back(a);
            }
        }
        return out;
    }

    // A deep copy of t with every node at loc (OPA's setLocRecursive on a chained head).
    TermPtr clone_at(const TermPtr& t, const Location& loc) {
        if (!t) return t;
        auto c = std::make_shared<Term>(*t);
        c->loc = loc;
        for (auto& e : c->elems) e = clone_at(e, loc);
        for (auto& [k, v] : c->items) {
            k = clone_at(k, loc);
            v = clone_at(v, loc);
        }
        c->key = clone_at(c->key, loc);
        c->value = clone_at(c->value, loc);
        if (auto it = names.find(t.get()); it != names.end()) names[c.get()] = it->second;
        return c;
    }

    // Where a chained body `{ ... }` starts and ends, found around its literals.
    static Location brace_location(const Body& body) {
        if (body.empty() || !body.front().loc.source) return body.empty() ? Location{} : body.front().loc;
        Location loc = body.front().loc;
        const std::string& text = loc.source->text();
        std::size_t start = loc.offset;
        while (start > 0 && (text[start - 1] == ' ' || text[start - 1] == '\t' || text[start - 1] == '\n' ||
                             text[start - 1] == '\r'))
            --start;
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

    void build_rule(const Rule& r, std::vector<NRule>& out) {
        NRule n;
        n.loc = r.loc;
        if (!r.extra_bodies.empty() && !r.body.empty()) {
            // OPA's rule text ends with its own body; each chained body is a rule of its own.
            Location own = brace_location(r.body);
            n.loc.length = own.offset + own.length - n.loc.offset;
        }
        n.is_default = r.is_default;
        const RuleHead& h = r.head;
        NHead& nh = n.head;
        nh.loc = h.loc.source ? h.loc : r.loc;
        if (h.ref) nh.ref = h.ref->kind == TermKind::Ref ? h.ref->elems : std::vector<TermPtr>{h.ref};
        nh.args = h.args;
        nh.key = h.key;
        nh.value = h.value;
        nh.assign = h.assign == AssignOp::Assign;
        for (const auto& t : nh.ref) number(t);
        for (const auto& t : nh.args) number(t);
        number(nh.key);
        number(nh.value);

        const bool has_ref_name = !nh.ref.empty() && nh.ref[0]->kind == TermKind::Var;
        if (nh.ref.size() == 1 && has_ref_name) nh.name = nh.ref[0]->text;
        if (!h.contains && !h.key && !r.is_default && nh.ref.size() == 2 && nh.args.empty()) {
            if (r.has_if) {
                // `p[x] if ...` is a single-value rule p[x]; a non-ground x is also its key.
                const TermPtr& k = nh.ref[1];
                if (!is_ground(k) || k->kind == TermKind::Ref) nh.key = k;
                if (!nh.value) {
                    nh.value = make_true(nh.loc);
                } else if (has_ref_name) {
                    nh.name = nh.ref[0]->text;
                }
            } else if (!r.body.empty()) {
                // v0 `p[x] = y { ... }` (partial object) and `p.q { ... }` (partial set).
                if (has_ref_name) nh.name = nh.ref[0]->text;
                nh.key = nh.ref[1];
                if (!nh.value) nh.ref.pop_back();
            }
        }
        if (!nh.value && !nh.key) nh.value = make_true(Location{});  // OPA's generated value has no location

        number(r.body);
        n.body = r.body.empty() ? true_body(r.loc) : alias(r.body);

        for (const Rule* e = r.else_rule.get(); e; e = e->else_rule.get()) {
            NRule& en = n.else_chain.emplace_back();
            en.loc = e->loc;
            NHead& eh = en.head;
            eh.loc = e->head.loc.source ? e->head.loc : e->loc;
            eh.ref = nh.ref;
            eh.name = nh.name;
            eh.key = nh.key;
            eh.args = regenerate_args(nh.args);
            if (e->head.value) {
                eh.value = e->head.value;
                eh.assign = e->head.assign == AssignOp::Assign;
                number(eh.value);
            } else {
                eh.value = make_true(Location{});
                eh.assign = nh.assign;
            }
            number(e->body);
            en.body = e->body.empty() ? true_body(e->loc) : alias(e->body);
        }
        out.push_back(std::move(n));
        const NHead top = out.back().head;  // a copy: push_back below may move out's elements

        for (const auto& extra : r.extra_bodies) {
            number(extra);
            NRule c;
            c.loc = brace_location(extra);
            NHead& ch = c.head;
            ch.loc = c.loc;
            for (const auto& t : top.ref) ch.ref.push_back(clone_at(t, c.loc));
            for (const auto& t : regenerate_args(top.args)) ch.args.push_back(clone_at(t, c.loc));
            ch.key = clone_at(top.key, c.loc);
            ch.value = clone_at(top.value, c.loc);
            ch.name = top.name;
            ch.assign = top.assign;
            c.body = alias(extra);
            out.push_back(std::move(c));
        }
    }
};

// ---------------------------------------------------------------------------
// Shared by both printers.

class Printer {
public:
    explicit Printer(const std::unordered_map<const Term*, std::string>& names) : names_(names) {}

    std::string var_name(const Term& t) const {
        if (auto it = names_.find(&t); it != names_.end()) return it->second;
        return t.text;
    }

    int compare(const TermPtr& a, const TermPtr& b) const {
        if (!a || !b) return a == b ? 0 : (a ? 1 : -1);
        int oa = kind_order(a->kind), ob = kind_order(b->kind);
        if (oa != ob) return oa < ob ? -1 : 1;
        switch (a->kind) {
            case TermKind::Null: return 0;
            case TermKind::Boolean: return a->boolean == b->boolean ? 0 : (a->boolean ? 1 : -1);
            case TermKind::Number: return compare_numbers(a->text, b->text);
            case TermKind::String: return sign_of(a->text.compare(b->text));
            case TermKind::Var: return sign_of(var_name(*a).compare(var_name(*b)));
            case TermKind::Ref:
            case TermKind::Array:
            case TermKind::Call: return compare_slices(a->elems, b->elems);
            case TermKind::Set: return compare_slices(sorted_set(*a), sorted_set(*b));
            case TermKind::Object: {
                auto x = sorted_object(*a), y = sorted_object(*b);
                for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
                    if (int c = compare(x[i].first, y[i].first)) return c;
                    if (int c = compare(x[i].second, y[i].second)) return c;
                }
                return x.size() == y.size() ? 0 : (x.size() < y.size() ? -1 : 1);
            }
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
            case TermKind::ObjectComprehension:
                if (int c = compare(a->key, b->key)) return c;
                if (int c = compare(a->value, b->value)) return c;
                return compare_bodies(a->body.get(), b->body.get());
            case TermKind::Template: return compare_bodies(a->body.get(), b->body.get());
        }
        return 0;
    }

    // Sorted, the first of equal elements kept (a sort, not pairwise compares: sets may be large).
    std::vector<TermPtr> sorted_set(const Term& t) const {
        std::vector<TermPtr> out = t.elems;
        std::stable_sort(out.begin(), out.end(), [&](const TermPtr& x, const TermPtr& y) { return compare(x, y) < 0; });
        out.erase(
            std::unique(out.begin(), out.end(), [&](const TermPtr& x, const TermPtr& y) { return compare(x, y) == 0; }),
            out.end());
        return out;
    }

    // Sorted by key; a repeated key keeps its first key term and its last value, as OPA's object insert does.
    std::vector<std::pair<TermPtr, TermPtr>> sorted_object(const Term& t) const {
        std::vector<std::pair<TermPtr, TermPtr>> sorted = t.items;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [&](const auto& x, const auto& y) { return compare(x.first, y.first) < 0; });
        std::vector<std::pair<TermPtr, TermPtr>> out;
        for (auto& item : sorted) {
            if (!out.empty() && compare(out.back().first, item.first) == 0) out.back().second = std::move(item.second);
            else out.push_back(std::move(item));
        }
        return out;
    }

    // A template part written as text (as opposed to a `{...}` literal): the
    // source before it is not an opening brace.
    static bool is_text_part(const Expr& e) {
        if (e.kind != ExprKind::Term || e.negated || !e.withs.empty() || !e.term || e.term->kind != TermKind::String)
            return false;
        const Location& loc = e.term->loc;
        if (!loc.source) return true;
        const std::string& text = loc.source->text();
        std::size_t i = loc.offset;
        while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r')) --i;
        return !(i > 0 && text[i - 1] == '{');
    }

    static bool is_multi_line(const Term& t) { return t.loc.text().substr(0, 2) == "$`"; }

private:
    const std::unordered_map<const Term*, std::string>& names_;

    int compare_slices(const std::vector<TermPtr>& a, const std::vector<TermPtr>& b) const {
        for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
            if (int c = compare(a[i], b[i])) return c;
        return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
    }

    static int expr_order(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Some: return 0;
            case ExprKind::Term: return e.term && e.term->kind == TermKind::Call ? 2 : 1;
            case ExprKind::Every: return 3;
            default: return 4;
        }
    }

    int compare_exprs(const Expr& a, const Expr& b) const {
        if (int oa = expr_order(a), ob = expr_order(b); oa != ob) return oa < ob ? -1 : 1;
        if (a.negated != b.negated) return a.negated ? 1 : -1;
        switch (a.kind) {
            case ExprKind::Term:
                if (int c = compare(a.term, b.term)) return c;
                break;
            case ExprKind::Some:
                if (int c = compare_slices(a.some.vars, b.some.vars)) return c;
                if (int c = compare(a.some.in_call, b.some.in_call)) return c;
                break;
            case ExprKind::Every:
                if (int c = compare(a.every.key, b.every.key)) return c;
                if (int c = compare(a.every.value, b.every.value)) return c;
                if (int c = compare(a.every.domain, b.every.domain)) return c;
                if (int c = compare_bodies(a.every.body.get(), b.every.body.get())) return c;
                break;
            default:
                // and/or literals: no OPA order to follow; source position keeps it deterministic.
                if (a.loc.offset != b.loc.offset) return a.loc.offset < b.loc.offset ? -1 : 1;
                break;
        }
        for (std::size_t i = 0; i < std::min(a.withs.size(), b.withs.size()); ++i) {
            if (int c = compare(a.withs[i].target, b.withs[i].target)) return c;
            if (int c = compare(a.withs[i].value, b.withs[i].value)) return c;
        }
        return a.withs.size() == b.withs.size() ? 0 : (a.withs.size() < b.withs.size() ? -1 : 1);
    }

    int compare_bodies(const Body* a, const Body* b) const {
        if (!a || !b) return a == b ? 0 : (a ? 1 : -1);
        for (std::size_t i = 0; i < std::min(a->size(), b->size()); ++i)
            if (int c = compare_exprs((*a)[i], (*b)[i])) return c;
        return a->size() == b->size() ? 0 : (a->size() < b->size() ? -1 : 1);
    }
};

// ---------------------------------------------------------------------------
// METADATA blocks -> OPA's Annotations JSON (keys sorted as Go writes a map).

// The tree is bounded in depth and size (yaml_node.hpp), so this recursion is too.
void yaml_value(JsonWriter& w, const yaml::Node& node) {
    if (node.is_null()) return w.null();
    if (node.is_scalar()) {
        JsonTree t = lang::yaml_scalar(node);  // typed as OPA's YAML library types it
        switch (t.kind) {
            case JsonTree::Kind::Boolean: return w.boolean(t.boolean);
            case JsonTree::Kind::Number: return w.raw(t.text);
            case JsonTree::Kind::String: return w.string(t.text);
            default: return w.null();
        }
    }
    if (node.is_sequence()) {
        w.begin_array();
        for (const auto& e : node.items) yaml_value(w, *e);
        w.end_array();
        return;
    }
    std::map<std::string, const yaml::Node*> sorted;
    for (const auto& [k, v] : node.members) sorted[k->text] = v.get();
    w.begin_object();
    for (const auto& [k, v] : sorted) {
        w.key(k);
        yaml_value(w, *v);
    }
    w.end_object();
}

// ---------------------------------------------------------------------------
// JSON

class JsonPrinter : public Printer {
public:
    JsonPrinter(const std::unordered_map<const Term*, std::string>& names, const AstJsonOptions& options)
        : Printer(names), opt_(options) {}

    JsonWriter w;

    void module(const Module& m, const NModule& n) {
        w.begin_object();
        w.key("package");
        w.begin_object();
        location(n.package_loc);
        w.key("path");
        ref_terms(n.package_path);
        w.end_object();
        if (opt_.imports && !m.imports.empty()) {
            w.key("imports");
            w.begin_array();
            for (const auto& imp : m.imports) {
                w.begin_object();
                if (!imp.alias.empty()) {
                    w.key("alias");
                    w.string(imp.alias);
                }
                location(imp.loc);
                w.key("path");
                term(imp.path);
                w.end_object();
            }
            w.end_array();
        }
        if (!m.annotations.empty()) {
            w.key("annotations");
            w.begin_array();
            for (const auto& a : m.annotations) annotation(a);
            w.end_array();
        }
        if (!n.rules.empty()) {
            w.key("rules");
            w.begin_array();
            for (const auto& r : n.rules) rule(r);
            w.end_array();
        }
        if (opt_.comments && !m.comments.empty()) {
            w.key("comments");
            w.begin_array();
            for (const auto& c : m.comments) {
                w.begin_object();
                w.key("Location");  // a plain Go struct field: always there
                location_value(c.loc);
                w.key("Text");
                w.string(support::base64_encode(c.text));
                w.end_object();
            }
            w.end_array();
        }
        w.end_object();
    }

private:
    const AstJsonOptions& opt_;

    void location_value(const Location& loc) {
        w.begin_object();
        w.key("file");
        w.string(loc.file());
        if (opt_.locations && opt_.location_text && loc.length > 0) {
            w.key("text");
            w.string(support::base64_encode(loc.text()));
        }
        w.key("row");
        w.integer(loc.line);
        w.key("col");
        w.integer(loc.col);
        w.end_object();
    }

    void location(const Location& loc) {
        if (!opt_.locations || !loc.source) return;
        w.key("location");
        location_value(loc);
    }

    void terms(const std::vector<TermPtr>& ts) {
        w.begin_array();
        for (const auto& t : ts) term(t);
        w.end_array();
    }

    // A ref's elements (also a package path, a rule head's ref): its head is a variable as written.
    void ref_terms(const std::vector<TermPtr>& ts) {
        w.begin_array();
        for (std::size_t i = 0; i < ts.size(); ++i) term(ts[i], i > 0);
        w.end_array();
    }

    void term(const TermPtr& t, bool root_document_as_ref = true) {
        if (!t) return w.null();
        w.begin_object();
        location(t->loc);
        if (root_document_as_ref && opt_.root_documents_as_refs && t->kind == TermKind::Var &&
            (t->text == "input" || t->text == "data")) {
            // OPA's compiler turns the variable into a ref; the ref and its head keep its location.
            w.key("type");
            w.string("ref");
            w.key("value");
            w.begin_array();
            w.begin_object();
            location(t->loc);
            w.key("type");
            w.string("var");
            w.key("value");
            w.string(t->text);
            w.end_object();
            w.end_array();
            w.end_object();
            return;
        }
        w.key("type");
        w.string(value_name(t->kind));
        w.key("value");
        value(*t);
        w.end_object();
    }

    void value(const Term& t) {
        switch (t.kind) {
            case TermKind::Null: w.raw("{}"); break;  // Go encodes OPA's Null (struct{}) as {}
            case TermKind::Boolean: w.boolean(t.boolean); break;
            case TermKind::Number: w.raw(t.text.empty() ? "0" : t.text); break;
            case TermKind::String: w.string(t.text); break;
            case TermKind::Var: w.string(var_name(t)); break;
            case TermKind::Ref: ref_terms(t.elems); break;
            case TermKind::Array:
            case TermKind::Call: terms(t.elems); break;
            case TermKind::Set: terms(sorted_set(t)); break;
            case TermKind::Object:
                w.begin_array();
                for (const auto& [k, v] : sorted_object(t)) {
                    w.begin_array();
                    term(k);
                    term(v);
                    w.end_array();
                }
                w.end_array();
                break;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
                w.begin_object();
                w.key("term");
                term(t.value);
                w.key("body");
                body(t.body.get());
                w.end_object();
                break;
            case TermKind::ObjectComprehension:
                w.begin_object();
                w.key("key");
                term(t.key);
                w.key("value");
                term(t.value);
                w.key("body");
                body(t.body.get());
                w.end_object();
                break;
            case TermKind::Template:
                w.begin_object();
                w.key("parts");
                w.begin_array();
                if (t.body) {
                    for (const auto& part : *t.body) {
                        if (is_text_part(part)) term(part.term);
                        else expr(part, 0);
                    }
                }
                w.end_array();
                w.key("multi_line");
                w.boolean(is_multi_line(t));
                w.end_object();
                break;
        }
    }

    void body(const Body* b) {
        w.begin_array();
        std::size_t shift = 0;
        if (b && opt_.generated && !b->empty() &&
            std::all_of(b->begin(), b->end(), [](const Expr& e) { return e.generated; })) {
            // A rule written without a body, whose head the compiler rewrote: OPA's parser
            // had given it the body `true`, and the compiler's expressions follow it.
            w.begin_object();
            w.key("index");
            w.integer(0);
            w.key("terms");
            w.begin_object();
            w.key("type");
            w.string("boolean");
            w.key("value");
            w.boolean(true);
            w.end_object();
            w.end_object();
            shift = 1;
        }
        if (b)
            for (std::size_t i = 0; i < b->size(); ++i) expr((*b)[i], i + shift);
        w.end_array();
    }

    void expr(const Expr& e, std::size_t index) {
        w.begin_object();
        if (e.generated && opt_.generated) {  // what the compiler made (OPA's Expr.Generated)
            w.key("generated");
            w.boolean(true);
        }
        w.key("index");
        w.integer(static_cast<long long>(index));
        location(e.loc);
        if (e.negated) {
            w.key("negated");
            w.boolean(true);
        }
        w.key("terms");
        expr_terms(e);
        if (!e.withs.empty()) {
            w.key("with");
            w.begin_array();
            for (const auto& with : e.withs) {
                w.begin_object();
                location(with.loc);
                w.key("target");
                term(with.target);
                w.key("value");
                term(with.value);
                w.end_object();
            }
            w.end_array();
        }
        w.end_object();
    }

    void expr_terms(const Expr& e) {
        switch (e.kind) {
            case ExprKind::Term:
                if (e.term && e.term->kind == TermKind::Call) terms(e.term->elems);
                else term(e.term);
                break;
            case ExprKind::Some:
                w.begin_object();
                location(e.loc);
                w.key("symbols");
                if (e.some.in_call) terms({e.some.in_call});
                else terms(e.some.vars);
                w.end_object();
                break;
            case ExprKind::Every:
                w.begin_object();
                w.key("body");
                body(e.every.body.get());
                w.key("domain");
                term(e.every.domain);
                w.key("key");
                term(e.every.key);  // null when absent, as OPA prints it
                location(e.loc);
                w.key("value");
                term(e.every.value);
                w.end_object();
                break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr: logic(e, e.children.size()); break;
            case ExprKind::Block:
                // Our shape: a braced group on its own (normally only inside and/or).
                w.begin_object();
                w.key("type");
                w.string("block");
                w.key("body");
                body(e.body.get());
                w.end_object();
                break;
        }
    }

    // Our shape for the experimental `and`/`or` literals, folded to the left:
    // {"type": "or", "lhs": body, "rhs": body, "explicit_lhs"?: true, "explicit_rhs"?: true}.
    void logic(const Expr& e, std::size_t count) {
        const char* type = e.kind == ExprKind::LogicAnd ? "and" : "or";
        if (count == 1) return operand_body(e.children[0]);
        w.begin_object();
        w.key("type");
        w.string(type);
        w.key("lhs");
        if (count == 2) {
            operand_body(e.children[0]);
        } else {
            w.begin_array();
            w.begin_object();
            w.key("index");
            w.integer(0);
            w.key("terms");
            logic(e, count - 1);
            w.end_object();
            w.end_array();
        }
        w.key("rhs");
        operand_body(e.children[count - 1]);
        if (count == 2 && e.children[0].kind == ExprKind::Block) {
            w.key("explicit_lhs");
            w.boolean(true);
        }
        if (e.children[count - 1].kind == ExprKind::Block) {
            w.key("explicit_rhs");
            w.boolean(true);
        }
        location(e.loc);
        w.end_object();
    }

    void operand_body(const Expr& operand) {
        if (operand.kind == ExprKind::Block) return body(operand.body.get());
        w.begin_array();
        expr(operand, 0);
        w.end_array();
    }

    void head(const NHead& h) {
        w.begin_object();
        location(h.loc);
        w.key("ref");
        ref_terms(h.ref);
        if (h.key) {
            w.key("key");
            term(h.key);
        }
        if (h.value) {
            w.key("value");
            term(h.value);
        }
        if (!h.name.empty()) {
            w.key("name");
            w.string(h.name);
        }
        if (!h.args.empty()) {
            w.key("args");
            terms(h.args);
        }
        if (h.assign) {
            w.key("assign");
            w.boolean(true);
        }
        w.end_object();
    }

    // A rule and its else clauses: each clause is the "else" field of the one before
    // (keys in Go's order: annotations, body, default, else, head, location), written
    // as the openings of the whole chain, then its closings from the innermost out.
    void rule(const NRule& r) {
        const std::size_t clauses = 1 + r.else_chain.size();
        auto clause = [&](std::size_t i) -> const NRule& { return i == 0 ? r : r.else_chain[i - 1]; };
        for (std::size_t i = 0; i < clauses; ++i) {
            const NRule& c = clause(i);
            w.begin_object();
            if (!c.annotations.empty()) {
                w.key("annotations");
                w.begin_array();
                for (const auto* a : c.annotations) annotation(*a);
                w.end_array();
            }
            w.key("body");
            body(c.body.get());
            if (c.is_default) {
                w.key("default");
                w.boolean(true);
            }
            if (i + 1 < clauses) w.key("else");
        }
        for (std::size_t i = clauses; i-- > 0;) {
            const NRule& c = clause(i);
            w.key("head");
            head(c.head);
            location(c.loc);
            w.end_object();
        }
    }

    // Authors and related resources take OPA's object shapes; other keys are
    // written as the YAML says (keys sorted, as Go writes maps).
    void annotation(const Annotation& a) {
        yaml::Documents doc = yaml::read_documents(a.yaml, yaml::ErrorDialect::GoYamlV3, {}, 1);
        const yaml::Node* root = doc.ok && !doc.documents.empty() ? doc.documents.front().get() : nullptr;
        std::map<std::string, std::function<void()>> fields;
        fields["scope"] = [this, &a] { w.string(a.scope); };
        if (opt_.locations && a.loc.source) fields["location"] = [this, &a] { location_value(a.loc); };
        if (root && root->is_mapping()) {
            for (const auto& [key, value] : root->members) {
                const std::string& k = key->text;
                const yaml::Node* v = value.get();
                if (k == "scope") continue;
                if (k == "authors") {
                    fields[k] = [this, v] { authors(*v); };
                } else if (k == "related_resources") {
                    fields[k] = [this, v] { related_resources(*v); };
                } else {
                    fields[k] = [this, v] { yaml_value(w, *v); };
                }
            }
        }
        w.begin_object();
        for (const auto& [k, f] : fields) {
            w.key(k);
            f();
        }
        w.end_object();
    }

    static std::string text_of(const yaml::Node* n) { return n && n->is_scalar() ? n->text : std::string(); }

    void authors(const yaml::Node& v) {
        w.begin_array();
        auto one = [this](const yaml::Node& a) {
            std::string name, email;
            if (a.is_mapping()) {
                name = text_of(a.get("name"));
                email = text_of(a.get("email"));
            } else if (a.is_scalar()) {
                const std::string& s = a.text;
                auto lt = s.rfind('<');
                if (lt != std::string::npos && !s.empty() && s.back() == '>') {
                    email = s.substr(lt + 1, s.size() - lt - 2);
                    name = s.substr(0, lt);
                    while (!name.empty() && name.back() == ' ') name.pop_back();
                } else {
                    name = s;
                }
            }
            w.begin_object();
            if (!email.empty()) {
                w.key("email");
                w.string(email);
            }
            if (!name.empty()) {
                w.key("name");
                w.string(name);
            }
            w.end_object();
        };
        if (v.is_sequence())
            for (const auto& a : v.items) one(*a);
        else one(v);
        w.end_array();
    }

    void related_resources(const yaml::Node& v) {
        w.begin_array();
        auto one = [this](const yaml::Node& r) {
            w.begin_object();
            if (r.is_mapping()) {
                if (const yaml::Node* d = r.get("description")) {
                    w.key("description");
                    w.string(text_of(d));
                }
                if (const yaml::Node* ref = r.get("ref")) {
                    w.key("ref");
                    w.string(text_of(ref));
                }
            } else if (r.is_scalar()) {
                w.key("ref");
                w.string(r.text);
            }
            w.end_object();
        };
        if (v.is_sequence())
            for (const auto& r : v.items) one(*r);
        else one(v);
        w.end_array();
    }
};

// ---------------------------------------------------------------------------
// Pretty: OPA's ast.Pretty. One node per line, one more space of indentation
// per level; terms print their values (strings quoted, wildcards as `_`).

class PrettyPrinter : public Printer {
public:
    explicit PrettyPrinter(const std::unordered_map<const Term*, std::string>& names) : Printer(names) {}

    std::string out;

    void module(const Module& m, const NModule& n, bool with_comments) {
        line(0, "module");
        line(1, "package");
        line(2, "ref");
        for (const auto& t : n.package_path) term(t, 3);
        for (const auto& imp : m.imports) {
            line(1, "import");
            term(imp.path, 2);
            line(2, imp.alias);
        }
        for (const auto& r : n.rules) rule_chain(r, 1);
        for (std::size_t i = 0; i < m.annotations.size(); ++i) line(1, "annotations");
        if (with_comments)
            for (std::size_t i = 0; i < m.comments.size(); ++i) line(1, "comment");
    }

private:
    void line(int depth, std::string_view text) {
        out.append(static_cast<std::size_t>(depth), ' ');
        out.append(text);
        out.push_back('\n');
    }

    void term(const TermPtr& t, int d) {
        if (!t) return;
        switch (t->kind) {
            case TermKind::Null: line(d, "null"); break;
            case TermKind::Boolean: line(d, t->boolean ? "true" : "false"); break;
            case TermKind::Number: line(d, t->text); break;
            case TermKind::String: line(d, go_quote(t->text)); break;
            case TermKind::Var: line(d, t->text); break;  // OPA prints wildcards back as `_`
            case TermKind::Ref:
            case TermKind::Array:
            case TermKind::Call:
                line(d, value_name(t->kind));
                for (const auto& e : t->elems) term(e, d + 1);
                break;
            case TermKind::Set:
                line(d, "set");
                for (const auto& e : sorted_set(*t)) term(e, d + 1);
                break;
            case TermKind::Object:
                line(d, "object");
                for (const auto& [k, v] : sorted_object(*t)) {
                    term(k, d + 1);
                    term(v, d + 1);
                }
                break;
            case TermKind::ArrayComprehension:
            case TermKind::SetComprehension:
                line(d, value_name(t->kind));
                term(t->value, d + 1);
                body(t->body.get(), d + 1);
                break;
            case TermKind::ObjectComprehension:
                line(d, "objectcomprehension");
                term(t->key, d + 1);
                term(t->value, d + 1);
                body(t->body.get(), d + 1);
                break;
            case TermKind::Template:
                line(d, "templatestring");
                if (t->body)
                    for (const auto& part : *t->body) {
                        if (is_text_part(part)) term(part.term, d + 1);
                        else expr(part, 0, d + 1);
                    }
                break;
        }
    }

    void body(const Body* b, int d) {
        line(d, "body");
        if (b)
            for (std::size_t i = 0; i < b->size(); ++i) expr((*b)[i], i, d + 1);
    }

    void expr(const Expr& e, std::size_t index, int d) {
        line(d, fmt::format("expr {}index={}", e.negated ? "negated " : "", index));
        switch (e.kind) {
            case ExprKind::Term:
                if (e.term && e.term->kind == TermKind::Call)
                    for (const auto& t : e.term->elems) term(t, d + 1);
                else term(e.term, d + 1);
                break;
            case ExprKind::Some:
                line(d + 1, "somedecl");
                if (e.some.in_call) term(e.some.in_call, d + 2);
                else
                    for (const auto& v : e.some.vars) term(v, d + 2);
                break;
            case ExprKind::Every:
                line(d + 1, "every");
                term(e.every.key, d + 2);
                term(e.every.value, d + 2);
                term(e.every.domain, d + 2);
                body(e.every.body.get(), d + 2);
                break;
            case ExprKind::LogicAnd:
            case ExprKind::LogicOr:
                // Our shape: the operator, then each operand as a body.
                line(d + 1, e.kind == ExprKind::LogicAnd ? "and" : "or");
                for (const auto& c : e.children) {
                    if (c.kind == ExprKind::Block) {
                        body(c.body.get(), d + 2);
                    } else {
                        line(d + 2, "body");
                        expr(c, 0, d + 3);
                    }
                }
                break;
            case ExprKind::Block: body(e.body.get(), d + 1); break;
        }
        for (const auto& w : e.withs) {
            line(d + 1, "with");
            term(w.target, d + 2);
            term(w.value, d + 2);
        }
    }

    void rule(const NRule& r, int d) {
        line(d, "rule");
        line(d + 1, "head");
        // As OPA's visitor: the ref (the key is not visited when there is one), args, value.
        line(d + 2, "ref");
        for (const auto& t : r.head.ref) term(t, d + 3);
        if (!r.head.args.empty()) {
            line(d + 2, "args");
            for (const auto& a : r.head.args) term(a, d + 3);
        }
        term(r.head.value, d + 2);
        body(r.body.get(), d + 1);
    }

    // OPA prints each else clause inside the one before, one level deeper.
    void rule_chain(const NRule& r, int d) {
        rule(r, d);
        for (std::size_t i = 0; i < r.else_chain.size(); ++i) rule(r.else_chain[i], d + 1 + static_cast<int>(i));
    }
};

}  // namespace

std::string module_to_json(const Module& module, const AstJsonOptions& options) {
    Normalizer norm;
    NModule n = norm.build(module);
    JsonPrinter p(norm.names, options);
    p.module(module, n);
    return options.indent ? indent_json(p.w.out) : std::move(p.w.out);
}

std::string module_to_json(const Module& module, bool with_locations) {
    AstJsonOptions options;
    options.locations = with_locations;
    return module_to_json(module, options);
}

std::string module_to_pretty(const Module& module, bool with_comments) {
    Normalizer norm;
    NModule n = norm.build(module);
    PrettyPrinter p(norm.names);
    p.module(module, n, with_comments);
    return std::move(p.out);
}

std::string module_to_pretty(const Module& module) { return module_to_pretty(module, true); }

}  // namespace gavel::lang
