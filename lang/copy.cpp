#include "lang/copy.hpp"

namespace gavel::lang {

TermPtr copy_term(const TermPtr& t) {
    if (!t) return nullptr;
    auto out = std::make_shared<Term>();
    out->kind = t->kind;
    out->loc = t->loc;
    out->boolean = t->boolean;
    out->parens = t->parens;
    out->text = t->text;
    out->elems.reserve(t->elems.size());
    for (const auto& e : t->elems) out->elems.push_back(copy_term(e));
    out->items.reserve(t->items.size());
    for (const auto& [k, v] : t->items) out->items.emplace_back(copy_term(k), copy_term(v));
    out->key = copy_term(t->key);
    out->value = copy_term(t->value);
    out->body = copy_body_ptr(t->body);
    return out;
}

Expr copy_expr(const Expr& e) {
    Expr out;
    out.kind = e.kind;
    out.loc = e.loc;
    out.negated = e.negated;
    out.generated = e.generated;
    out.implicit_body = e.implicit_body;
    out.call_value = e.call_value;
    out.term = copy_term(e.term);
    for (const auto& v : e.some.vars) out.some.vars.push_back(copy_term(v));
    out.some.in_call = copy_term(e.some.in_call);
    out.every.key = copy_term(e.every.key);
    out.every.value = copy_term(e.every.value);
    out.every.domain = copy_term(e.every.domain);
    out.every.body = copy_body_ptr(e.every.body);
    out.children.reserve(e.children.size());
    for (const auto& c : e.children) out.children.push_back(copy_expr(c));
    out.body = copy_body_ptr(e.body);
    out.withs.reserve(e.withs.size());
    for (const auto& w : e.withs) out.withs.push_back(With{w.loc, copy_term(w.target), copy_term(w.value)});
    return out;
}

Body copy_body(const Body& b) {
    Body out;
    out.reserve(b.size());
    for (const auto& e : b) out.push_back(copy_expr(e));
    return out;
}

BodyPtr copy_body_ptr(const BodyPtr& b) {
    if (!b) return nullptr;
    return std::make_shared<Body>(copy_body(*b));
}

RuleHead copy_head(const RuleHead& h) {
    RuleHead out = h;
    out.ref = copy_term(h.ref);
    for (auto& a : out.args) a = copy_term(a);
    out.key = copy_term(h.key);
    out.value = copy_term(h.value);
    return out;
}

namespace {

Rule copy_one(const Rule& r) {
    Rule out;
    out.loc = r.loc;
    out.is_default = r.is_default;
    out.head = copy_head(r.head);
    out.body = copy_body(r.body);
    out.has_if = r.has_if;
    out.literal_body = r.literal_body;
    out.generated_body = r.generated_body;
    for (const auto& b : r.extra_bodies) out.extra_bodies.push_back(copy_body(b));
    return out;
}

}  // namespace

Rule copy_rule(const Rule& r) {
    Rule out = copy_one(r);
    Rule* tail = &out;
    for (const Rule* e = r.else_rule.get(); e; e = e->else_rule.get()) {
        tail->else_rule = std::make_shared<Rule>(copy_one(*e));
        tail = tail->else_rule.get();
    }
    return out;
}

Module copy_module(const Module& m) {
    Module out;
    out.source = m.source;
    out.package = Package{m.package.loc, copy_term(m.package.path)};
    for (const auto& imp : m.imports) out.imports.push_back(Import{imp.loc, copy_term(imp.path), imp.alias});
    out.rules.reserve(m.rules.size());
    for (const auto& r : m.rules) out.rules.push_back(copy_rule(r));
    out.comments = m.comments;
    out.annotations = m.annotations;
    out.rego_v1 = m.rego_v1;
    return out;
}

}  // namespace gavel::lang
