#include "engine/partial/bindings.hpp"

namespace gavel::partial {

const Bindings::Entry* Bindings::find(const std::string& var) const {
    for (const auto& e : entries_)
        if (e.key->text == var) return &e;
    return nullptr;
}

void Bindings::bind(const TermPtr& var, TermPtr value, Bindings* owner) {
    for (auto& e : entries_) {
        if (e.key->text == var->text) {
            e.value = std::move(value);
            e.owner = owner;
            return;
        }
    }
    entries_.push_back({var, std::move(value), owner});
}

void Bindings::unbind(const std::string& var) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (entries_[i].key->text == var) {
            if (i + 1 < entries_.size()) entries_[i] = std::move(entries_.back());
            entries_.pop_back();
            return;
        }
    }
}

std::pair<TermPtr, Bindings*> Bindings::apply(const TermPtr& t) {
    Bindings* b = this;
    TermPtr at = t;
    // Chains are followed iteratively: each step reads the next list.
    while (at->kind == TermKind::Var) {
        const Entry* e = b->find(at->text);
        if (!e) break;
        at = e->value;
        b = e->owner;
    }
    return {at, b};
}

TermPtr Bindings::namespace_var(const TermPtr& v, Bindings* caller) {
    if (caller && caller != this && !is_root_document(*v)) {
        auto t = make_var(v->text + std::to_string(id_));
        t->loc = v->loc;
        return t;
    }
    return v;
}

TermPtr Bindings::plug_namespaced(const TermPtr& a, Bindings* caller) {
    switch (a->kind) {
        case TermKind::Var: {
            auto [b, next] = apply(a);
            if (b != a || next != this) return next->plug_namespaced(b, caller);
            return namespace_var(b, caller);
        }
        case TermKind::Array: {
            if (is_ground(*a)) return a;
            std::vector<TermPtr> elems;
            elems.reserve(a->elems.size());
            for (const auto& e : a->elems) elems.push_back(plug_namespaced(e, caller));
            return with_elems(*a, std::move(elems));
        }
        case TermKind::Set: {
            if (is_ground(*a)) return a;
            std::vector<TermPtr> elems;
            elems.reserve(a->elems.size());
            for (const auto& e : sorted_elems(*a)) elems.push_back(plug_namespaced(e, caller));
            auto t = make_set(std::move(elems));
            t->loc = a->loc;
            return t;
        }
        case TermKind::Object: {
            if (is_ground(*a)) return a;
            std::vector<Item> items;
            items.reserve(a->items.size());
            for (const auto& [k, v] : sorted_items(*a))
                items.emplace_back(plug_namespaced(k, caller), plug_namespaced(v, caller));
            return with_items(*a, std::move(items));
        }
        case TermKind::Ref: {
            std::vector<TermPtr> parts;
            parts.reserve(a->elems.size());
            for (const auto& p : a->elems) parts.push_back(plug_namespaced(p, caller));
            return with_elems(*a, std::move(parts));
        }
        default: return a;
    }
}

lang::Expr Bindings::plug_expr_namespaced(const lang::Expr& e, Bindings* caller) {
    lang::Expr out = e;
    if (is_call(e)) {
        std::vector<TermPtr> terms = e.term->elems;
        for (std::size_t i = 1; i < terms.size(); ++i) terms[i] = plug_namespaced(terms[i], caller);
        out.term = with_elems(*e.term, std::move(terms));
    } else if (e.kind == lang::ExprKind::Term && e.term) {
        out.term = plug_namespaced(e.term, caller);
    }
    for (auto& w : out.withs) w.value = plug_namespaced(w.value, caller);
    return out;
}

void Bindings::iter(Bindings* caller, const std::function<void(const TermPtr&, const TermPtr&)>& f) {
    // A copy: `f` may not change this list, but plugging reads it.
    std::vector<TermPtr> keys;
    keys.reserve(entries_.size());
    for (const auto& e : entries_) keys.push_back(e.key);
    for (const auto& k : keys) f(k, plug_namespaced(k, caller));
}

TermPtr Bindings::namespace_term(const TermPtr& a, Bindings* caller) {
    switch (a->kind) {
        case TermKind::Var: return namespace_var(a, caller);
        case TermKind::Array:
        case TermKind::Set:
        case TermKind::Ref: {
            if (a->kind != TermKind::Ref && is_ground(*a)) return a;
            std::vector<TermPtr> elems;
            elems.reserve(a->elems.size());
            for (const auto& e : a->elems) elems.push_back(namespace_term(e, caller));
            return with_elems(*a, std::move(elems));
        }
        case TermKind::Object: {
            if (is_ground(*a)) return a;
            std::vector<Item> items;
            for (const auto& [k, v] : sorted_items(*a))
                items.emplace_back(namespace_term(k, caller), namespace_term(v, caller));
            return with_items(*a, std::move(items));
        }
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension: return namespace_comprehension(a, caller);
        default: return a;
    }
}

lang::Body Bindings::namespace_body(const lang::Body& body, Bindings* caller) {
    lang::Body out;
    out.reserve(body.size());
    for (const auto& e : body) {
        lang::Expr c = e;
        if (is_call(e)) {
            std::vector<TermPtr> terms = e.term->elems;
            for (std::size_t i = 1; i < terms.size(); ++i) terms[i] = namespace_term(terms[i], caller);
            c.term = with_elems(*e.term, std::move(terms));
        } else if (e.kind == lang::ExprKind::Term && e.term) {
            c.term = namespace_term(e.term, caller);
        } else if (e.kind == lang::ExprKind::Every) {
            // OPA renames inside an `every` body, not its key, value or domain.
            c.every.body = std::make_shared<lang::Body>(namespace_body(*e.every.body, caller));
        }
        for (auto& w : c.withs) {
            w.target = namespace_term(w.target, caller);
            w.value = namespace_term(w.value, caller);
        }
        out.push_back(std::move(c));
    }
    return out;
}

TermPtr Bindings::namespace_comprehension(const TermPtr& t, Bindings* caller) {
    auto c = std::make_shared<Term>(*t);
    if (c->key) c->key = namespace_term(c->key, caller);
    if (c->value) c->value = namespace_term(c->value, caller);
    c->body = std::make_shared<lang::Body>(namespace_body(*t->body, caller));
    return c;
}

}  // namespace gavel::partial
