#include "lang/ast.hpp"

namespace gavel::lang {

namespace {

// Children taken out of nodes about to be released, to be released in turn.
struct Orphans {
    std::vector<TermPtr> terms;
    std::vector<BodyPtr> bodies;
};

void adopt(Expr& e, Orphans& out);

void adopt(Term& t, Orphans& out) {
    for (auto& e : t.elems) out.terms.push_back(std::move(e));
    t.elems.clear();
    for (auto& [k, v] : t.items) {
        out.terms.push_back(std::move(k));
        out.terms.push_back(std::move(v));
    }
    t.items.clear();
    if (t.key) out.terms.push_back(std::move(t.key));
    if (t.value) out.terms.push_back(std::move(t.value));
    if (t.body) out.bodies.push_back(std::move(t.body));
}

// Expressions nest only inside brackets (and/or groups), which the parser bounds.
void adopt(Expr& e, Orphans& out) {
    if (e.term) out.terms.push_back(std::move(e.term));
    for (auto& v : e.some.vars) out.terms.push_back(std::move(v));
    if (e.some.in_call) out.terms.push_back(std::move(e.some.in_call));
    if (e.every.key) out.terms.push_back(std::move(e.every.key));
    if (e.every.value) out.terms.push_back(std::move(e.every.value));
    if (e.every.domain) out.terms.push_back(std::move(e.every.domain));
    if (e.every.body) out.bodies.push_back(std::move(e.every.body));
    for (auto& c : e.children) adopt(c, out);
    if (e.body) out.bodies.push_back(std::move(e.body));
    for (auto& w : e.withs) {
        if (w.target) out.terms.push_back(std::move(w.target));
        if (w.value) out.terms.push_back(std::move(w.value));
    }
}

}  // namespace

Term::~Term() {
    if (elems.empty() && items.empty() && !key && !value && !body) return;
    // Children we hold the last reference to are emptied before they go, so
    // each release below finds nothing left to recurse into.
    Orphans pending;
    adopt(*this, pending);
    while (!pending.terms.empty() || !pending.bodies.empty()) {
        if (!pending.terms.empty()) {
            TermPtr t = std::move(pending.terms.back());
            pending.terms.pop_back();
            if (t && t.use_count() == 1) adopt(*t, pending);
        } else {
            BodyPtr b = std::move(pending.bodies.back());
            pending.bodies.pop_back();
            if (b && b.use_count() == 1)
                for (auto& e : *b) adopt(e, pending);
        }
    }
}

Rule::~Rule() {
    std::shared_ptr<Rule> next = std::move(else_rule);
    while (next && next.use_count() == 1) {
        std::shared_ptr<Rule> after = std::move(next->else_rule);
        next = std::move(after);
    }
}

std::string Term::ref_dotted() const {
    if (kind != TermKind::Ref || elems.empty() || elems[0]->kind != TermKind::Var) return {};
    std::string out = elems[0]->text;
    for (std::size_t i = 1; i < elems.size(); ++i) {
        if (elems[i]->kind != TermKind::String) return {};
        out += '.';
        out += elems[i]->text;
    }
    return out;
}

std::string Term::call_name() const {
    if (kind != TermKind::Call || elems.empty()) return {};
    return elems[0]->ref_dotted();
}

std::string_view value_name(TermKind kind) {
    switch (kind) {
        case TermKind::Null: return "null";
        case TermKind::Boolean: return "boolean";
        case TermKind::Number: return "number";
        case TermKind::String: return "string";
        case TermKind::Var: return "var";
        case TermKind::Ref: return "ref";
        case TermKind::Array: return "array";
        case TermKind::Set: return "set";
        case TermKind::Object: return "object";
        case TermKind::ArrayComprehension: return "arraycomprehension";
        case TermKind::SetComprehension: return "setcomprehension";
        case TermKind::ObjectComprehension: return "objectcomprehension";
        case TermKind::Call: return "call";
        case TermKind::Template: return "templatestring";
    }
    return "term";
}

TermPtr make_term(TermKind kind, const Location& loc) {
    auto t = std::make_shared<Term>();
    t->kind = kind;
    t->loc = loc;
    return t;
}

TermPtr make_var(std::string name, const Location& loc) {
    auto t = make_term(TermKind::Var, loc);
    t->text = std::move(name);
    return t;
}

TermPtr make_string(std::string value, const Location& loc) {
    auto t = make_term(TermKind::String, loc);
    t->text = std::move(value);
    return t;
}

TermPtr make_ref(std::vector<TermPtr> parts, const Location& loc) {
    auto t = make_term(TermKind::Ref, loc);
    t->elems = std::move(parts);
    return t;
}

TermPtr make_bool(bool value, const Location& loc) {
    auto t = make_term(TermKind::Boolean, loc);
    t->boolean = value;
    return t;
}

Expr make_term_expr(TermPtr t, const Location& loc) {
    Expr e;
    e.kind = ExprKind::Term;
    e.loc = loc;
    e.term = std::move(t);
    return e;
}

TermPtr make_call(std::string_view op, std::vector<TermPtr> args, const Location& loc, bool infix) {
    auto t = make_term(TermKind::Call, loc);
    std::vector<TermPtr> parts;
    std::size_t start = 0;
    // Dotted operator names (internal.member_2) become a Var head and string parts.
    while (true) {
        std::size_t dot = op.find('.', start);
        std::string piece(op.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        parts.push_back(parts.empty() ? make_var(std::move(piece), loc) : make_string(std::move(piece), loc));
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    t->elems.reserve(args.size() + 1);
    t->elems.push_back(make_ref(std::move(parts), loc));
    for (auto& a : args) t->elems.push_back(std::move(a));
    t->boolean = infix;
    return t;
}

}  // namespace gavel::lang
