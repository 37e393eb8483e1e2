// The Rego grammar in Boost.Spirit X3.
//
// Precedence, loosest first, as OPA's parser has it:
//   literal:   `:=` / `=`            (expr_top)
//              `k, v in xs`          (expr_top, key-value membership)
//   terms:     `in`                  (expr_in)
//              == != < <= > >=       (relation)
//              |                     (set union)
//              &                     (set intersection)
//              + -                   (arith)
//              * / %                 (factor)
//              postfix . [ ] ( )     (term)
// With the experimental keywords, `or` < `and` < `not` combine whole literals.
//
// Rules build AST nodes with semantic actions; terminals (lexical.hpp) record
// locations and the furthest failure for error messages.
//
// Chains (infix operators, bodies, collections, else clauses) are Kleene loops,
// never recursion: only brackets nest the grammar, and source_scan bounds those.

#include "lang/grammar.hpp"

#include <boost/fusion/include/at_c.hpp>
#include <boost/spirit/home/x3.hpp>

#include <string>

#include "lang/lexical.hpp"
#include "lang/opa_scanner.hpp"
#include "lang/term_order.hpp"
#include "lang/root_document.hpp"

namespace gavel::lang::grammar {

namespace x3 = boost::spirit::x3;
using namespace lexical;
using boost::fusion::at_c;
using x3::_attr;
using x3::_pass;
using x3::_val;

namespace {

// ---- operators -------------------------------------------------------------

struct op_entry {
    const char* text;
    const char* name;
    const char* not_followed_by;
};

// Matches one of several operator spellings and yields the builtin's name.
template <std::size_t N>
struct operator_parser : x3::parser<operator_parser<N>> {
    using attribute_type = std::string;
    std::array<op_entry, N> ops;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr& attr) const {
        const char* p = first;
        skip_blank(p, last);
        for (const auto& op : ops) {
            std::size_t n = std::strlen(op.text);
            if (static_cast<std::size_t>(last - p) >= n && std::memcmp(p, op.text, n) == 0 &&
                !(p + n < last && op.not_followed_by && std::strchr(op.not_followed_by, p[n]))) {
                x3::traits::move_to(std::string(op.name), attr);
                first = p + n;
                return true;
            }
            state_of(ctx).fail_at(p, op.text);
        }
        return false;
    }
};

const operator_parser<3> mul_op{{}, {{{"*", "mul", nullptr}, {"/", "div", nullptr}, {"%", "rem", nullptr}}}};
const operator_parser<2> add_op{{}, {{{"+", "plus", nullptr}, {"-", "minus", nullptr}}}};
const operator_parser<1> and_op{{}, {{{"&", "and", nullptr}}}};
const operator_parser<1> or_op{{}, {{{"|", "or", nullptr}}}};
const operator_parser<6> rel_op{{},
                                {{{"==", "equal", nullptr},
                                  {"!=", "neq", nullptr},
                                  {"<=", "lte", nullptr},
                                  {">=", "gte", nullptr},
                                  {"<", "lt", nullptr},
                                  {">", "gt", nullptr}}}};
const operator_parser<2> assign_op{{}, {{{":=", "assign", nullptr}, {"=", "eq", "="}}}};

const auto kw_in = keyword_parser{{}, "in", 2, KeywordClass::In, true};
// The `in` of `k, v in xs`: OPA's parseTermIn takes it as the keyword without looking ahead for
// a ref (`0, 1 in[1]`); in `some`/`every` declarations that holds after two variables only.
const auto kw_in_of_pair = keyword_parser{{}, "in", 2, KeywordClass::In, false};
const auto kw_in_of_declaration = keyword_parser{{}, "in", 2, KeywordClass::In, true, true};
const auto note_variable_list = [](auto& ctx) { state_of(ctx).in_after_pair = _attr(ctx).size() == 2; };
const auto pair_read = x3::eps[([](auto& ctx) { state_of(ctx).in_after_pair = true; })];
const auto no_pair_read = x3::eps[([](auto& ctx) { state_of(ctx).in_after_pair = false; })];
// `default[x] := 1` names a rule `default` (OPA's parseRules reads the keyword as a name before `[`).
const auto kw_default = keyword_parser{{}, "default", 7, KeywordClass::Always, true};
const auto kw_if = kw("if", KeywordClass::If);
const auto kw_every = kw("every", KeywordClass::Every);
const auto kw_contains = kw("contains", KeywordClass::Contains);
const auto kw_and = kw("and", KeywordClass::Logic);
const auto kw_or = kw("or", KeywordClass::Logic);

// ---- node helpers ----------------------------------------------------------

const char* start_of(const Term& t) { return t.loc.source->text().data() + t.loc.offset; }
const char* end_of(const Term& t) { return start_of(t) + t.loc.length; }

// Where a term starts and ends with the parentheses written around it: a term's
// own location excludes them (Term::parens), but the calls and expressions
// built from it span them, as OPA's do (`x := (1 + 2)`, `(a) == b`).
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
const char* outer_start(const Term& t) {
    const char* first = t.loc.source->text().data();
    const char* at = start_of(t);
    for (unsigned n = 0; n < t.parens; ++n) {
        const char* p = at;
        while (p > first && is_blank(p[-1])) --p;
        if (p == first || p[-1] != '(') break;
        at = p - 1;
    }
    return at;
}
const char* outer_end(const Term& t) {
    std::string_view text = t.loc.source->text();
    const char* last = text.data() + text.size();
    const char* at = end_of(t);
    for (unsigned n = 0; n < t.parens; ++n) {
        const char* p = at;
        while (p < last && is_blank(*p)) ++p;
        if (p == last || *p != ')') break;
        at = p + 1;
    }
    return at;
}

template <class Ctx>
Location span(const Ctx& ctx, const char* from, const char* to) {
    return state_of(ctx).location(from, to);
}

template <class Ctx>
TermPtr infix(const Ctx& ctx, std::string_view op, TermPtr lhs, TermPtr rhs) {
    Location loc = span(ctx, outer_start(*lhs), outer_end(*rhs));
    return make_call(op, {std::move(lhs), std::move(rhs)}, loc, true);
}

// What OPA's parseRef names a term that cannot head a ref (`3[0]`, `"a".b`, `(a.b).c`, `(input).a`), or null:
// a ref starts at a variable, a collection, a comprehension or a call.
const char* illegal_ref_head(const Term& t) {
    switch (t.kind) {
        case TermKind::Null: return "null";
        case TermKind::Boolean: return "boolean";
        case TermKind::Number: return "number";
        case TermKind::String: return "string";
        case TermKind::Ref: return t.parens > 0 ? "ref" : nullptr;
        case TermKind::Var:  // `(input)` is the ref input to OPA's parser
            return t.parens > 0 && is_root_document_name(t.text) ? "ref" : nullptr;
        default: return nullptr;
    }
}

// Extends `base` with one more path part: refs grow, other terms become a ref head.
template <class Ctx>
void append_ref_part(const Ctx& ctx, TermPtr& base, TermPtr part, const char* end) {
    Location loc = span(ctx, start_of(*base), end);
    if (const char* name = illegal_ref_head(*base)) {
        auto& st = state_of(ctx);
        st.error(st.begin + base->loc.offset, std::string("illegal ref (head cannot be ") + name + ")");
        base = make_ref({base, std::move(part)}, loc);  // the parts after it extend this one
    } else if (base->kind == TermKind::Ref) {
        base->elems.push_back(std::move(part));
        base->loc = loc;
    } else {
        base = make_ref({base, std::move(part)}, loc);
    }
}

// ---- actions ---------------------------------------------------------------

const auto set_val = [](auto& ctx) { _val(ctx) = _attr(ctx); };

const auto fold_infix = [](auto& ctx) {
    auto& a = _attr(ctx);
    _val(ctx) = infix(ctx, at_c<0>(a), _val(ctx), at_c<1>(a));
};

const auto fold_member = [](auto& ctx) { _val(ctx) = infix(ctx, "internal.member_2", _val(ctx), _attr(ctx)); };

const auto dot_part = [](auto& ctx) {
    TermPtr name = _attr(ctx);
    const char* end = end_of(*name);
    auto part = make_string(name->text, name->loc);
    append_ref_part(ctx, _val(ctx), std::move(part), end);
};

const auto bracket_part = [](auto& ctx) {
    auto& a = _attr(ctx);
    append_ref_part(ctx, _val(ctx), at_c<0>(a), at_c<1>(a));
};

const auto call_part = [](auto& ctx) {
    auto& a = _attr(ctx);
    TermPtr& fn = _val(ctx);
    // OPA's parseRef calls whatever ref precedes `(` (`[1, 2](1)`, `input[0](x)`): the compiler
    // then finds no such function. Scalars and parenthesised refs head no ref at all, and a
    // call's `(` ends it (`f(1)(2)`, `set()(1)`; `(f(1))(2)` is a call of a ref).
    const bool after_call =
        fn->parens == 0 && (fn->kind == TermKind::Call || (fn->kind == TermKind::Set && fn->elems.empty()));
    if (illegal_ref_head(*fn) || after_call) {
        _pass(ctx) = false;
        return;
    }
    std::vector<TermPtr> args = std::move(at_c<0>(a));
    Location loc = span(ctx, start_of(*fn), at_c<1>(a));
    if (fn->kind == TermKind::Var && fn->text == "set" && args.empty()) {
        fn = make_term(TermKind::Set, loc);  // set() is the empty set
        return;
    }
    TermPtr op = fn->kind == TermKind::Ref ? fn : make_ref({fn}, fn->loc);
    auto call = make_term(TermKind::Call, loc);
    call->elems.push_back(std::move(op));
    for (auto& arg : args) call->elems.push_back(std::move(arg));
    fn = std::move(call);
};

template <TermKind K>
struct begin_node {
    template <class Ctx>
    void operator()(Ctx& ctx) const {
        const char* at = _attr(ctx);
        _val(ctx) = make_term(K, span(ctx, at, at));
    }
};

const auto begin_template = [](auto& ctx) {
    const char* at = _attr(ctx);
    _val(ctx) = make_term(TermKind::Template, span(ctx, at, at));
    _val(ctx)->body = std::make_shared<Body>();
};

const auto push_part = [](auto& ctx) { _val(ctx)->body->push_back(std::move(_attr(ctx))); };

const auto push_text_part = [](auto& ctx) {
    Expr e;
    e.term = _attr(ctx);
    e.loc = e.term->loc;
    _val(ctx)->body->push_back(std::move(e));
};

const auto end_node = [](auto& ctx) {
    TermPtr& t = _val(ctx);
    const char* at = _attr(ctx);
    t->loc = span(ctx, start_of(*t), at);
};

// A parenthesised ref may be extended by a postfix below (`(a.b).c`); the
// memoised term it came from must stay as it was parsed.
const auto set_primary = [](auto& ctx) {
    TermPtr t = _attr(ctx);
    if (t->kind == TermKind::Ref) t = std::make_shared<Term>(*t);
    _val(ctx) = std::move(t);
};

// `-x.y` is minus(0, x.y), as OPA's newest parseTerm builds it for a ref after `-` (OPA PR 8551,
// April 2026; OPA 1.7.1 refuses it: README).
const auto minus_ref = [](auto& ctx) {
    auto& a = _attr(ctx);
    const char* at = at_c<0>(a);
    TermPtr operand = at_c<1>(a);
    auto zero = make_term(TermKind::Number, span(ctx, at, at + 1));
    zero->text = "0";
    _val(ctx) = make_call("minus", {std::move(zero), operand}, span(ctx, at, end_of(*operand)), false);
};

template <TermKind K>
struct set_elems {
    template <class Ctx>
    void operator()(Ctx& ctx) const {
        _val(ctx)->kind = K;
        _val(ctx)->elems = std::move(_attr(ctx));
        if constexpr (K == TermKind::Set) drop_repeated_elems(_val(ctx)->elems);  // as OPA's parser
    }
};

const auto set_items = [](auto& ctx) {
    _val(ctx)->kind = TermKind::Object;
    _val(ctx)->items = std::move(_attr(ctx));
    drop_repeated_keys(_val(ctx)->items);  // as OPA's parser: the first key, the last value
};

// `[head | body]`, `{head | body}`
template <TermKind K>
struct to_comprehension {
    template <class Ctx>
    void operator()(Ctx& ctx) const {
        auto& a = _attr(ctx);
        TermPtr& t = _val(ctx);
        t->kind = K;
        t->value = at_c<0>(a);
        t->body = std::make_shared<Body>(std::move(at_c<1>(a)));
    }
};

// `{key: value | body}`
const auto to_object_comprehension = [](auto& ctx) {
    auto& a = _attr(ctx);
    TermPtr& t = _val(ctx);
    t->kind = TermKind::ObjectComprehension;
    t->key = at_c<0>(a);
    t->value = at_c<1>(a);
    t->body = std::make_shared<Body>(std::move(at_c<2>(a)));
};

const auto make_pair = [](auto& ctx) {
    auto& a = _attr(ctx);
    _val(ctx) = {at_c<0>(a), at_c<1>(a)};
};

const auto make_bool = [](bool value) {
    return [value](auto& ctx) {
        auto& a = _attr(ctx);
        auto t = make_term(TermKind::Boolean, span(ctx, at_c<0>(a), at_c<1>(a)));
        t->boolean = value;
        _val(ctx) = std::move(t);
    };
};

const auto make_null = [](auto& ctx) {
    auto& a = _attr(ctx);
    _val(ctx) = make_term(TermKind::Null, span(ctx, at_c<0>(a), at_c<1>(a)));
};

const auto assign_expr = [](auto& ctx) {
    auto& a = _attr(ctx);
    _val(ctx) = infix(ctx, at_c<0>(a), _val(ctx), at_c<1>(a));
};

// `k, v in xs` at the top of a literal.
const auto key_value_member = [](auto& ctx) {
    auto& a = _attr(ctx);
    TermPtr key = _val(ctx);
    TermPtr value = at_c<0>(a);
    TermPtr domain = at_c<1>(a);
    Location loc = span(ctx, outer_start(*key), outer_end(*domain));
    _val(ctx) = make_call("internal.member_3", {key, value, domain}, loc, true);
};

// ---- literals --------------------------------------------------------------

const auto term_expr = [](auto& ctx) {
    Expr e;
    e.kind = ExprKind::Term;
    e.term = _attr(ctx);
    e.loc = span(ctx, outer_start(*e.term), outer_end(*e.term));
    _val(ctx) = std::move(e);
};

const auto some_expr = [](auto& ctx) {
    auto& a = _attr(ctx);
    const char* start = at_c<0>(a);
    std::vector<TermPtr>& symbols = at_c<1>(a);
    auto& domain = at_c<2>(a);
    Expr e;
    e.kind = ExprKind::Some;
    if (domain) {
        if (symbols.size() > 2) {
            _pass(ctx) = false;
            state_of(ctx).fail_at(start, "at most two variables before `in`");
            return;
        }
        for (auto& s : symbols)
            if (is_root_document(*s)) s = make_ref({s}, s->loc);
        const std::vector<TermPtr>& domains = domain->terms;
        Location loc = span(ctx, outer_start(*symbols.front()), outer_end(*domains.front()));
        std::vector<TermPtr> args = symbols;
        args.push_back(domains.front());
        TermPtr call =
            make_call(symbols.size() == 1 ? "internal.member_2" : "internal.member_3", std::move(args), loc, true);
        for (std::size_t i = 1; i < domains.size(); ++i) {
            loc = span(ctx, outer_start(*symbols.front()), outer_end(*domains[i]));
            call = make_call("internal.member_2", {call, domains[i]}, loc, true);
        }
        e.some.in_call = std::move(call);
        e.loc = span(ctx, start, outer_end(*domains.back()));
    } else {
        for (auto& s : symbols) {
            if (s->kind != TermKind::Var) {
                _pass(ctx) = false;
                state_of(ctx).fail_at(start_of(*s), "variable");
                return;
            }
        }
        e.some.vars = symbols;
        e.loc = span(ctx, start, end_of(*symbols.back()));
    }
    _val(ctx) = std::move(e);
};

const auto every_expr = [](auto& ctx) {
    auto& a = _attr(ctx);
    const char* start = at_c<0>(a);
    TermPtr first = at_c<1>(a);
    auto& second = at_c<2>(a);
    Expr e;
    e.kind = ExprKind::Every;
    if (second) {
        e.every.key = first;
        e.every.value = *second;
    } else {
        e.every.value = first;
    }
    e.every.domain = at_c<3>(a);
    // OPA's parseEvery: the key and the value are variables (`input` and `data` are refs), or
    // the token after the domain (the body's `{`) is reported, before the body is read.
    for (const auto& [term, what] : {std::pair{e.every.key, "key"}, std::pair{e.every.value, "value"}}) {
        if (!term || (term->kind == TermKind::Var && !is_root_document(*term))) continue;
        const char* body = outer_end(*e.every.domain);
        skip_blank(body, state_of(ctx).end);
        _pass(ctx) = false;
        // The error is there, not where reading the body (which OPA does not do) stopped.
        state_of(ctx).restore({body, {}, std::string("expected ") + what + " to be a variable"});
        return;
    }
    e.every.body = std::make_shared<Body>(std::move(at_c<4>(a)));
    e.loc = span(ctx, start, at_c<5>(a));
    _val(ctx) = std::move(e);
};

const auto negate = [](auto& ctx) {
    auto& a = _attr(ctx);
    Expr e = std::move(at_c<1>(a));
    const char* start = at_c<0>(a);
    e.negated = true;
    e.loc = span(ctx, start, state_of(ctx).begin + e.loc.offset + e.loc.length);
    _val(ctx) = std::move(e);
};

const auto make_with = [](auto& ctx) {
    auto& a = _attr(ctx);
    With w;
    w.target = at_c<1>(a);
    w.value = at_c<2>(a);
    w.loc = span(ctx, at_c<0>(a), outer_end(*w.value));
    _val(ctx) = std::move(w);
};

const auto add_withs = [](auto& ctx) {
    auto& a = _attr(ctx);
    Expr e = std::move(at_c<0>(a));
    auto& withs = at_c<1>(a);
    if (!withs.empty()) {
        // OPA's parseSome returns a declaration of names (`some x, y`) before any `with`.
        if (e.kind == ExprKind::Some && !e.some.in_call) {
            _pass(ctx) = false;
            return;
        }
        const char* start = state_of(ctx).begin + e.loc.offset;
        e.loc = span(ctx, start, state_of(ctx).begin + withs.back().loc.offset + withs.back().loc.length);
        e.withs = std::move(withs);
    }
    _val(ctx) = std::move(e);
};

// `not not x`: OPA's parseLiteral reads an expression after `not`, and `not` starts none.
const auto double_not = [](auto& ctx) {
    _pass(ctx) = false;
    state_of(ctx).fail_because(_attr(ctx), "");
};

// `not some x`, `not every ...`
const auto negated_declaration = [](auto& ctx) {
    const char* at = _attr(ctx);
    _pass(ctx) = false;
    std::string word = *at == 's' ? "some" : "every";
    state_of(ctx).fail_because(at, "illegal negation of '" + word + "'");
};

const auto logic_guard = [](auto& ctx) { _pass(ctx) = state_of(ctx).keywords.logic; };
const auto not_block_guard = [](auto& ctx) {
    _pass(ctx) = state_of(ctx).keywords.not_block || state_of(ctx).keywords.logic;
};

template <ExprKind K>
struct fold_logic {
    template <class Ctx>
    void operator()(Ctx& ctx) const {
        std::vector<Expr>& parts = _attr(ctx);
        if (parts.size() == 1) {
            // A braced group is a body only as an operand of and/or; alone, `{ x }` is a set.
            if (K == ExprKind::LogicOr && parts.front().kind == ExprKind::Block && !parts.front().negated) {
                _pass(ctx) = false;
                return;
            }
            _val(ctx) = std::move(parts.front());
            return;
        }
        Expr e;
        e.kind = K;
        auto& st = state_of(ctx);
        const auto& last = parts.back().loc;
        e.loc = span(ctx, st.begin + parts.front().loc.offset, st.begin + last.offset + last.length);
        e.children = std::move(parts);
        _val(ctx) = std::move(e);
    }
};

const auto make_block = [](auto& ctx) {
    auto& a = _attr(ctx);
    Expr e;
    e.kind = ExprKind::Block;
    e.body = std::make_shared<Body>(std::move(at_c<1>(a)));
    e.loc = span(ctx, at_c<0>(a), at_c<2>(a));
    _val(ctx) = std::move(e);
};

const auto require_logic_group = [](auto& ctx) {
    Expr& e = _attr(ctx);
    // A parenthesised plain term is an ordinary term: `(1 + 2) * 3 == 9`.
    if (e.kind == ExprKind::Term && e.withs.empty() && !e.negated) {
        _pass(ctx) = false;
        return;
    }
    _val(ctx) = std::move(e);
};

// ---- rules -----------------------------------------------------------------

const auto rule_start = [](auto& ctx) {
    Rule& r = _val(ctx);
    r.loc = span(ctx, _attr(ctx), _attr(ctx));
};

const auto set_default = [](auto& ctx) { _val(ctx).is_default = true; };
const auto set_head_ref = [](auto& ctx) {
    Rule& r = _val(ctx);
    r.head.ref = _attr(ctx);
    r.head.loc = r.head.ref->loc;
};
// The head so far is a bare name (its argument list may follow after space).
const auto head_is_name = [](auto& ctx) {
    const Rule& r = _val(ctx);
    _pass(ctx) = r.head.ref && r.head.ref->kind == TermKind::Var;
};
const auto set_args = [](auto& ctx) {
    Rule& r = _val(ctx);
    r.head.has_args = true;
    r.head.args = std::move(_attr(ctx));
};
const auto set_contains = [](auto& ctx) {
    Rule& r = _val(ctx);
    if (r.head.has_args) {  // OPA: "the contains keyword can only be used with multi-value rule definitions"
        _pass(ctx) = false;
        return;
    }
    r.head.contains = true;
    r.head.key = _attr(ctx);
};
const auto set_value = [](auto& ctx) {
    Rule& r = _val(ctx);
    auto& a = _attr(ctx);
    r.head.assign = at_c<0>(a) == "assign" ? AssignOp::Assign : AssignOp::Unify;
    r.head.value = at_c<1>(a);
};
const auto set_if = [](auto& ctx) { _val(ctx).has_if = true; };
const auto add_body = [](auto& ctx) {
    Rule& r = _val(ctx);
    if (r.body.empty()) r.body = std::move(_attr(ctx));
    else r.extra_bodies.push_back(std::move(_attr(ctx)));
};
const auto add_literal_body = [](auto& ctx) {
    Rule& r = _val(ctx);
    r.body.clear();
    r.body.push_back(std::move(_attr(ctx)));
    r.literal_body = true;
};
// Links the else clauses in one pass (each clause is the else of the one before).
const auto link_else_chain = [](auto& ctx) {
    std::vector<Rule>& clauses = _attr(ctx);
    auto& st = state_of(ctx);
    // OPA's parseRules reads `else` only after a body: `r := 1 else := 2` and
    // `default r := 1 else := 2` end at their value, and the `else` starts nothing.
    const Rule& head = _val(ctx);
    if (!clauses.empty() && (head.is_default || (head.body.empty() && !head.has_if))) {
        st.error(st.begin + clauses.front().loc.offset, "unexpected else keyword");
        return;
    }
    if (clauses.size() > st.max_else_branches) {
        st.error(st.begin + clauses[st.max_else_branches].loc.offset,
                 "else chain exceeds the limit of " + std::to_string(st.max_else_branches) + " branches");
        return;  // the error keeps the module from loading
    }
    std::shared_ptr<Rule> next;
    for (std::size_t i = clauses.size(); i-- > 0;) {
        auto clause = std::make_shared<Rule>(std::move(clauses[i]));
        clause->else_rule = std::move(next);
        next = std::move(clause);
    }
    _val(ctx).else_rule = std::move(next);
};
const auto rule_end = [](auto& ctx) {
    Rule& r = _val(ctx);
    const char* start = state_of(ctx).begin + r.loc.offset;
    r.loc = span(ctx, start, _attr(ctx));
};

const auto import_stmt = [](auto& ctx) {
    auto& a = _attr(ctx);
    Import imp;
    imp.path = at_c<1>(a);
    if (at_c<2>(a)) imp.alias = (*at_c<2>(a))->text;
    // OPA reads the alias as a term: `input` and `data` are refs there, not vars ("expected var").
    if (imp.alias == "input" || imp.alias == "data") {
        _pass(ctx) = false;
        return;
    }
    imp.loc = span(ctx, at_c<0>(a), at_c<3>(a));
    _val(ctx) = std::move(imp);
};

const auto package_stmt = [](auto& ctx) {
    auto& a = _attr(ctx);
    Package pkg;
    pkg.path = at_c<1>(a);
    pkg.loc = span(ctx, at_c<0>(a), at_c<2>(a));
    _val(ctx) = std::move(pkg);
};

// ---- the grammar -----------------------------------------------------------

x3::rule<class term_class, TermPtr> const term_rule = "term";
x3::rule<class postfix_term_class, TermPtr> const postfix_term = "term";
x3::rule<class ref_term_class, TermPtr> const ref_term = "term";
x3::rule<class primary_class, TermPtr> const primary = "term";
x3::rule<class factor_class, TermPtr> const factor = "expression";
x3::rule<class arith_class, TermPtr> const arith = "expression";
x3::rule<class band_class, TermPtr> const band = "expression";
x3::rule<class bor_class, TermPtr> const bor = "expression";
x3::rule<class relation_class, TermPtr> const relation = "expression";
x3::rule<class expr_in_class, TermPtr> const expr_in = "expression";
x3::rule<class expr_kv_class, TermPtr> const expr_kv = "expression";
x3::rule<class expr_top_class, TermPtr> const expr_top = "expression";
x3::rule<class array_class, TermPtr> const array = "array";
x3::rule<class brace_class, TermPtr> const brace = "object or set";
x3::rule<class items_class, std::vector<TermPtr>> const items = "terms";
x3::rule<class object_item_class, std::pair<TermPtr, TermPtr>> const object_item = "object item";
x3::rule<class object_items_class, std::vector<std::pair<TermPtr, TermPtr>>> const object_items = "object items";
x3::rule<class paren_class, TermPtr> const paren = "parenthesised expression";
x3::rule<class template_class, TermPtr> const template_string = "template string";
x3::rule<class scalar_class, TermPtr> const scalar_keyword = "scalar";
x3::rule<class args_class, std::vector<TermPtr>> const args = "arguments";
x3::rule<class maybe_args_class, std::vector<TermPtr>> const maybe_args = "arguments";
x3::rule<class with_class, With> const with_modifier = "with";
// The collections of `some ... in xs in ys`: a struct, so X3 does not merge them with the symbols.
struct SomeDomains {
    std::vector<TermPtr> terms;
};
x3::rule<class some_domains_class, SomeDomains> const some_domains = "collection";
x3::rule<class some_class, Expr> const some_decl = "some";
x3::rule<class every_class, Expr> const every_decl = "every";
x3::rule<class term_literal_class, Expr> const term_literal = "expression";
x3::rule<class literal_core_class, Expr> const literal_core = "literal";
x3::rule<class simple_literal_class, Expr> const simple_literal = "literal";
x3::rule<class block_class, Expr> const block = "block";
x3::rule<class negatable_class, Expr> const negatable = "literal";
x3::rule<class logic_unit_class, Expr> const logic_unit = "literal";
x3::rule<class logic_and_class, Expr> const logic_and = "literal";
x3::rule<class logic_or_class, Expr> const logic_or = "literal";
x3::rule<class literal_class, Expr> const literal = "literal";
x3::rule<class body_class, Body> const body = "body";
x3::rule<class braced_body_class, Body> const braced_body = "body";
x3::rule<class token_body_class, Body> const token_body = "body";
x3::rule<class head_ref_class, TermPtr> const head_ref = "rule name";
x3::rule<class else_class, Rule> const else_clause = "else";
x3::rule<class rule_class, Rule> const rule = "rule";
x3::rule<class path_class, TermPtr> const path = "path";
x3::rule<class import_class, Import> const import = "import";
x3::rule<class package_class, Package> const package = "package";

// One term (OPA's parseTerm: a value with its postfix refs and calls), parsed
// at most once per position and statement (ParseState::terms).
struct memo_term_parser : x3::parser<memo_term_parser> {
    using attribute_type = TermPtr;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx& rctx, Attr& attr) const {
        auto& st = state_of(ctx);
        const char* start = first;
        skip_blank(start, last);
        auto known = st.terms.find(start);
        if (known == st.terms.end()) {
            const char* p = first;
            TermPtr parsed;
            bool ok = term_rule.parse(p, last, ctx, rctx, parsed);
            known = st.terms.emplace(start, ParsedTerm{ok ? std::move(parsed) : nullptr, p}).first;
        }
        if (!known->second.term) return false;
        x3::traits::move_to(TermPtr(known->second.term), attr);
        first = known->second.end;
        return true;
    }
};

const memo_term_parser term{};

// The literal after `if`, unless it is a set literal: OPA reads `p if { x }` as a
// braced body instead, while `p if { x | y }` (a comprehension) stays one literal.
// What failed while reading the set said nothing about the body, so it is forgotten, as
// are the errors found in it (`null[x]` is an illegal ref in a set, a name heading a
// literal there): OPA's restore drops the errors of the reading it abandons.
struct if_literal_parser : x3::parser<if_literal_parser> {
    using attribute_type = Expr;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx& rctx, Attr& attr) const {
        auto& st = state_of(ctx);
        ParseState::Failures before = st.failures();
        const std::size_t errors_before = st.diagnostics ? st.diagnostics->size() : 0;
        const char* p = first;
        Expr e;
        const bool read = literal.parse(p, last, ctx, rctx, e);
        if (!read || (e.kind == ExprKind::Term && e.term && e.term->kind == TermKind::Set)) {
            if (read) st.restore(std::move(before));
            if (st.diagnostics && st.diagnostics->size() > errors_before) {
                st.diagnostics->truncate(errors_before);
                st.terms.clear();  // the body reads its terms again, and finds their errors again
            }
            return false;
        }
        x3::traits::move_to(std::move(e), attr);
        first = p;
        return true;
    }
};

const if_literal_parser if_literal{};

// Records where a literal starts (after blanks) and consumes nothing.
struct literal_start_parser : x3::parser<literal_start_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        const char* p = first;
        skip_blank(p, last);
        auto& st = state_of(ctx);
        // A term read here before, outside a literal, may read otherwise now (`not.x`).
        if (st.literal_starts.insert(p).second) st.terms.erase(p);
        return true;
    }
};

const literal_start_parser literal_start{};

// What must follow a keyword, as OPA's parser checks the next token, or the reason it is refused.
// `with` takes a name that is no keyword (parseWith: "expected ident"); `else` a value, `if`
// or a body (parseElse). Consumes nothing.
enum class Follows : uint8_t { WithTarget, ElseClause };

struct follows_parser : x3::parser<follows_parser> {
    using attribute_type = x3::unused_type;
    static bool const has_attribute = false;
    Follows what;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        auto& st = state_of(ctx);
        const char* p = first;
        skip_blank(p, last);
        const char* q = p;
        while (q < last && is_ident_char(*q)) ++q;
        std::string_view word(p, static_cast<std::size_t>(q - p));
        bool ok = false;
        if (what == Follows::WithTarget) {
            ok = !word.empty() && is_ident_start(*p) && !is_active_keyword(st, word);
            if (!ok) st.fail_because(p, "expected ident");
        } else {
            bool keyword_if = word == "if" && st.keywords.if_ && !(q < last && *q == '.');
            ok = keyword_if || (p < last && *p == '{') || (last - p >= 2 && p[0] == ':' && p[1] == '=') ||
                 (p < last && *p == '=' && !(last - p >= 2 && p[1] == '='));
            if (!ok) st.fail_because(p, "expected else value term or rule body");
        }
        return ok;
    }
};

// Any one token OPA's scanner reads without complaint (after blanks and comments). OPA's
// parseRules, when no literal follows `if`, steps over the next token, whatever it is, and
// reads a body up to `}` (its case for `{` falls through from the case for `if`): `p if ( x }`
// and `p if if x }` are rules in OPA.
struct any_token_parser : x3::parser<any_token_parser> {
    using attribute_type = x3::unused_type;

    template <class It, class Ctx, class RCtx, class Attr>
    bool parse(It& first, const It& last, const Ctx& ctx, RCtx&, Attr&) const {
        auto& st = state_of(ctx);
        opa::Scanner scanner(std::string_view(first, static_cast<std::size_t>(last - first)));
        while (true) {
            opa::Scanned t = scanner.scan();
            if (t.tok == opa::Tok::Whitespace || t.tok == opa::Tok::Comment) continue;
            // A character no token starts with (`@`) is a token too; one the scanner complains of is not.
            if (t.tok == opa::Tok::Eof || !t.errors.empty()) {
                st.fail_at(first + t.pos.offset, "{");
                return false;
            }
            first += t.pos.end;
            return true;
        }
    }
};

const any_token_parser any_token{};

const auto postfix =
    *((adj(".") >> ident(IdentMode::AfterDot))[dot_part] | (adj("[") >> expr_kv >> tok("]") >> here)[bracket_part] |
      (adj("(") >> maybe_args >> tok(")") >> here)[call_part]);

const auto term_rule_def = (mark >> tok("-") >> ref_term)[minus_ref] | postfix_term[set_val];
const auto postfix_term_def = primary[set_primary] >> postfix;
const auto ref_term_def = ident(IdentMode::Term)[set_val] >> postfix;

const auto args_def = expr_in % tok(",") >> -tok(",");
// No arguments is an empty list, not an absent one.
const auto maybe_args_def = args | x3::attr(std::vector<TermPtr>());

const auto primary_def = template_string | quoted_string | raw_string | number | ident(IdentMode::Term) |
                         scalar_keyword | array | brace | paren;

// Where a literal starts, `null[x]` is a name heading a ref (OPA's parseLiteral looks ahead).
constexpr keyword_parser scalar_kw(const char* word, std::size_t size) {
    return keyword_parser{{}, word, size, KeywordClass::Always, false, false, true};
}
const auto scalar_keyword_def = (mark >> scalar_kw("true", 4) >> here)[make_bool(true)] |
                                (mark >> scalar_kw("false", 5) >> here)[make_bool(false)] |
                                (mark >> scalar_kw("null", 4) >> here)[make_null];

// Template parts are literals: `{x with input as y}` is allowed.
const auto template_string_def =
    mark[begin_template] >>
    ((tok("$\"") >> *(template_text_quoted[push_text_part] | (adj("{") >> simple_literal[push_part] >> tok("}"))) >>
      adj("\"")) |
     (tok("$`") >> *(template_text_raw[push_text_part] | (adj("{") >> simple_literal[push_part] >> tok("}"))) >>
      adj("`"))) >>
    here[end_node];

const auto items_def = expr_in % tok(",") >> -tok(",");
const auto object_item_def = (expr_in >> tok(":", "=") >> expr_in)[make_pair];
const auto object_items_def = object_item % tok(",") >> -tok(",");

// As OPA's parseArray: a comprehension's head is one term directly followed by
// `|` and a body that runs to `]`. Anything else is a list of expressions, so
// `[x | y, 5]` holds or(x, y) and `[{1} - {10} | {2}]` one set expression. A
// leading comma (`[, x]`, kept by OPA for compatibility) rules a comprehension out.
const auto array_def = mark[begin_node<TermKind::Array>{}] >> tok("[") >>
                       (tok("]") | (tok(",") >> items >> tok("]"))[set_elems<TermKind::Array>{}] |
                        (term >> tok("|") >> body >> tok("]"))[to_comprehension<TermKind::ArrayComprehension>{}] |
                        (items >> tok("]"))[set_elems<TermKind::Array>{}]) >>
                       here[end_node];

const auto set_or_object = (items >> tok("}"))[set_elems<TermKind::Set>{}] | (object_items >> tok("}"))[set_items];

// As OPA's parseSetOrObject: `{t | body}` is a set comprehension when t is one
// term; if no body follows, `{t | ...}` can only be a set (`{1 | 1, 2}`).
// `{k: v | body}` is an object comprehension when v is one term (k may be any
// expression). Otherwise the items are expressions.
const auto brace_def = mark[begin_node<TermKind::Object>{}] >> tok("{") >>
                       (tok("}") | (tok(",") >> set_or_object) |
                        (term >> tok("|") >> body >> tok("}"))[to_comprehension<TermKind::SetComprehension>{}] |
                        (&(term >> tok("|")) >> (items >> tok("}"))[set_elems<TermKind::Set>{}]) |
                        (!(term >> tok("|")) >>
                         ((expr_in >> tok(":", "=") >> term >> tok("|") >> body >> tok("}"))[to_object_comprehension] |
                          set_or_object))) >>
                       here[end_node];

// Inside parentheses the key-value membership `(k, v in xs)` is a term too.
// The term keeps its own location; the count of parentheses lets the formatter
// find them again. A position is parsed once per statement (memo_term_parser), so
// each pair is counted once.
const auto count_parens = [](auto& ctx) {
    TermPtr t = _attr(ctx);
    if (t->parens < UINT8_MAX) ++t->parens;
    _val(ctx) = std::move(t);
};
const auto paren_def = (tok("(") >> expr_kv >> tok(")"))[count_parens];

const auto factor_def = term[set_val] >> *(mul_op >> term)[fold_infix];
const auto arith_def = factor[set_val] >> *(add_op >> factor)[fold_infix];
const auto band_def = arith[set_val] >> *(and_op >> arith)[fold_infix];
const auto bor_def = band[set_val] >> *(or_op >> band)[fold_infix];
const auto relation_def = bor[set_val] >> *(rel_op >> bor)[fold_infix];
const auto expr_in_def = relation[set_val] >> *(kw_in >> relation)[fold_member];

// `k, v in xs` may chain further `in`s and stand on either side of `:=`.
const auto expr_kv_def = expr_in[set_val] >> -((tok(",") >> relation >> kw_in_of_pair >> relation)[key_value_member] >>
                                               *(kw_in >> relation)[fold_member]);
const auto expr_top_def = expr_kv[set_val] >> -(assign_op >> expr_kv)[assign_expr];

const auto with_modifier_def =
    (mark >> kw("with") >> follows_parser{{}, Follows::WithTarget} >> term >> kw("as") >> expr_kv)[make_with];

// As OPA's parseSome, which reads the declaration as one infix term: further `in`s chain on
// the left (`some x in xs in ys` declares `(x in xs) in ys`, whose x the compiler finds unsafe).
const auto some_domains_def = (relation % kw_in)[([](auto& ctx) { _val(ctx).terms = std::move(_attr(ctx)); })];
const auto some_decl_def = (mark >> kw("some") >> (relation % tok(","))[note_variable_list] >>
                            -(kw_in_of_declaration >> some_domains))[some_expr];

const auto every_decl_def = (mark >> kw_every >> term >> no_pair_read >> -(tok(",") >> term >> pair_read) >>
                             kw_in_of_declaration >> relation >> braced_body >> here)[every_expr];

const auto term_literal_def = expr_top[term_expr];
const auto literal_core_def = some_decl | every_decl | term_literal;
const auto simple_literal_def = (literal_core >> *with_modifier)[add_withs];

const auto block_def = (mark >> tok("{") >> body >> tok("}") >> here)[make_block];

// What `not` may negate: one literal, never another `not` (that would also
// recurse once per `not`).
const auto negatable_def = (x3::eps[logic_guard] >> block[set_val]) |
                           (x3::eps[logic_guard] >> (tok("(") >> literal >> tok(")"))[require_logic_group]) |
                           literal_core[set_val];

// The two rejecting alternatives only record why; the lookahead keeps the next one from taking `not some`.
// `not { ... }` negates a body only under `import future.keywords.not` (or the experimental and/or);
// otherwise `not {5} < 7` negates a comparison of a set, as in OPA 1.7.1.
// `not[x]` is the ref `not[x]` where a literal starts, as `not.x` (OPA's parseLiteral looks ahead).
const auto kw_not = keyword_parser{{}, "not", 3, KeywordClass::Always, true};
const auto logic_unit_def = (x3::eps[not_block_guard] >> mark >> kw_not >> block)[negate] |
                            (kw_not >> mark >> kw("not"))[double_not] |
                            (kw_not >> mark >> (kw("some") | kw_every))[negated_declaration] |
                            (mark >> kw_not >> !(kw("some") | kw_every) >> negatable)[negate] | negatable[set_val];

const auto logic_and_def = (logic_unit % kw_and)[fold_logic<ExprKind::LogicAnd>{}];
// `with` modifies the whole literal, also one combined with and/or.
const auto literal_def = literal_start >> ((logic_or >> *with_modifier)[add_withs] | simple_literal[set_val]);
const auto logic_or_def = (logic_and % kw_or)[fold_logic<ExprKind::LogicOr>{}];

const auto body_def = literal % (tok(";") | newline_separator);
const auto braced_body_def = tok("{") >> body >> tok("}");
const auto token_body_def = any_token >> body >> tok("}");

// OPA's parseHead reads the name's first `[`, `.` or `(` after skipping space (`p [x] := 1`,
// `a .b[1] := 2 if ...`, `sum (a, b) := c`; a `.` before a digit starts a number); the parts
// after it must be adjacent.
const auto head_ref_def = ident(IdentMode::Var)[set_val] >> -((tok("[") >> expr_kv >> tok("]") >> here)[bracket_part] |
                                                              (tok(".") >> ident(IdentMode::AfterDot))[dot_part]) >>
                          *((adj(".") >> ident(IdentMode::AfterDot))[dot_part] |
                            (adj("[") >> expr_kv >> tok("]") >> here)[bracket_part]);

// After `if`, one literal (unless it reads as a set) or a braced body (OPA's parseRules).
const auto rule_body =
    -((kw_if[set_if] >> (if_literal[add_literal_body] | braced_body[add_body] | token_body[add_body])) |
      braced_body[add_body]);

// After the body and its else chain, further braced bodies, each another definition of the
// rule; OPA's parseRules refuses one after an else chain ("expected else keyword").
const auto no_else_chain = x3::eps[([](auto& ctx) {
    if (!_val(ctx).else_rule) return;
    _pass(ctx) = false;
    const char* p = _where(ctx).begin();
    skip_blank(p, state_of(ctx).end);
    if (p < state_of(ctx).end && *p == '{') state_of(ctx).error(p, "expected else keyword");
})];
const auto chained_bodies = *(no_else_chain >> braced_body[add_body]);

// An else clause has one body (OPA's parseElse): braced, or one literal after `if`. A `{`
// after `if` always opens a body there (`else := 1 if {x | ...}` is no comprehension).
const auto else_body =
    -((kw_if[set_if] >> (braced_body[add_body] | (!tok("{") >> literal[add_literal_body]))) | braced_body[add_body]);

const auto else_clause_def = mark[rule_start] >> kw("else") >> follows_parser{{}, Follows::ElseClause} >>
                             -(assign_op >> expr_kv)[set_value] >> else_body >> here[rule_end];

const auto rule_def = mark[rule_start] >> -kw_default[set_default] >> head_ref[set_head_ref] >>
                      -((adj("(") | (x3::eps[head_is_name] >> tok("("))) >> maybe_args >> tok(")"))[set_args] >>
                      -((kw_contains >> expr_kv)[set_contains] | (assign_op >> expr_kv)[set_value]) >> rule_body >>
                      (*else_clause)[link_else_chain] >> chained_bodies >> here[rule_end];

const auto path_def = ident(IdentMode::Any)[set_val] >>
                      *((adj(".") >> ident(IdentMode::AfterDot))[dot_part] |
                        (adj("[") >> quoted_string >> tok("]") >> here)[bracket_part]);

const auto import_def = (mark >> kw("import") >> path >> -(kw("as") >> ident(IdentMode::Var)) >> here)[import_stmt];
const auto package_def = (mark >> kw("package") >> path >> here)[package_stmt];

BOOST_SPIRIT_DEFINE(term_rule, postfix_term, ref_term, primary, factor, arith, band, bor, relation, expr_in, expr_kv,
                    expr_top, array, brace, items, object_item, object_items, paren, template_string, scalar_keyword,
                    args, maybe_args, with_modifier, some_domains, some_decl, every_decl, term_literal, literal_core,
                    simple_literal, block, negatable, logic_unit, logic_and, logic_or, literal, body, braced_body,
                    token_body, head_ref, else_clause, rule, path, import, package)

template <class Parser, class Attr>
bool run(const Parser& p, const char*& first, const char* last, ParseState& st, Attr& out) {
    const auto grammar = x3::with<state_tag>(std::ref(st))[p];
    st.terms.clear();
    st.literal_starts.clear();
    bool ok = x3::parse(first, last, grammar, out);
    st.terms.clear();
    st.literal_starts.clear();
    return ok;
}

}  // namespace

bool parse_package(const char*& first, const char* last, ParseState& st, Package& out) {
    return run(package, first, last, st, out);
}
bool parse_import(const char*& first, const char* last, ParseState& st, Import& out) {
    return run(import, first, last, st, out);
}
bool parse_rule(const char*& first, const char* last, ParseState& st, Rule& out) {
    return run(rule, first, last, st, out);
}
bool parse_body(const char*& first, const char* last, ParseState& st, Body& out) {
    return run(body, first, last, st, out);
}
bool parse_query_statement(const char*& first, const char* last, ParseState& st, Body& out) {
    static const auto statement = x3::rule<class query_statement_class, Body>{"query statement"} = literal % tok(";");
    return run(statement, first, last, st, out);
}
bool parse_term(const char*& first, const char* last, ParseState& st, TermPtr& out) {
    return run(expr_in, first, last, st, out);
}

}  // namespace gavel::lang::grammar
