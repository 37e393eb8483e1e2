#include "engine/partial/save.hpp"

#include "lang/term_string.hpp"

namespace gavel::partial {

void SaveSet::push(const std::vector<TermPtr>& terms, Bindings* b) {
    Elem e;
    e.b = b;
    for (const auto& t : terms) {
        if (t->kind == TermKind::Var && !is_root_document(*t)) e.vars.push_back(t);
        else if (t->kind == TermKind::Var || t->kind == TermKind::Ref) e.refs.push_back(as_ref(t));
    }
    elems_.push_back(std::move(e));
}

bool SaveSet::Elem::contains_var(const Term& t, Bindings* b) const {
    if (b != this->b) return false;
    for (const auto& v : vars)
        if (v->text == t.text) return true;
    return false;
}

bool SaveSet::Elem::contains(const Term& t, Bindings* b) const {
    // A bare `data` or `input` is a ref (OPA's parser makes it one): a var
    // of that name is a ref's head, and as a var it is never unknown.
    if (t.kind == TermKind::Var) return contains_var(t, b);
    if (t.kind == TermKind::Ref) {
        for (const auto& ref : refs)
            if (ref_has_prefix(*ref, t) || ref_has_prefix(t, *ref)) return true;
        return !t.elems.empty() && t.elems[0]->kind == TermKind::Var && contains_var(*t.elems[0], b);
    }
    return false;
}

bool SaveSet::contains(const Term& t, Bindings* b) const {
    for (auto it = elems_.rbegin(); it != elems_.rend(); ++it)
        if (it->contains(t, b)) return true;
    return false;
}

namespace {

// Calls f on every term inside t (t included) until it returns true (OPA's WalkTerms).
bool walk_terms(const TermPtr& t, const std::function<bool(const TermPtr&)>& f);

bool walk_body_terms(const lang::Body& body, const std::function<bool(const TermPtr&)>& f) {
    for (const auto& e : body) {
        if (e.term && walk_terms(e.term, f)) return true;
        if (e.kind == lang::ExprKind::Every) {
            if (e.every.key && walk_terms(e.every.key, f)) return true;
            if (e.every.value && walk_terms(e.every.value, f)) return true;
            if (e.every.domain && walk_terms(e.every.domain, f)) return true;
            if (e.every.body && walk_body_terms(*e.every.body, f)) return true;
        }
        for (const auto& w : e.withs) {
            if (walk_terms(w.target, f) || walk_terms(w.value, f)) return true;
        }
    }
    return false;
}

bool walk_terms(const TermPtr& t, const std::function<bool(const TermPtr&)>& f) {
    if (!t) return false;
    if (f(t)) return true;
    for (const auto& e : t->elems)
        if (walk_terms(e, f)) return true;
    for (const auto& [k, v] : t->items)
        if (walk_terms(k, f) || walk_terms(v, f)) return true;
    if (t->key && walk_terms(t->key, f)) return true;
    if (t->value && walk_terms(t->value, f)) return true;
    if (t->body && walk_body_terms(*t->body, f)) return true;
    return false;
}

}  // namespace

bool SaveSet::contains_recursive(const TermPtr& t, Bindings* b) const {
    bool found = false;
    walk_terms(t, [&](const TermPtr& x) {
        if (x->kind == TermKind::Var) {
            auto [x1, b1] = b->apply(x);
            if (x1 != x || b1 != b) {
                if (contains_recursive(x1, b1)) found = true;
            } else if (contains(*x1, b1)) {
                found = true;
            }
        }
        return found;
    });
    return found;
}

compiler::VarSet SaveSet::vars(Bindings* caller) const {
    compiler::VarSet out;
    for (const auto& e : elems_)
        for (const auto& v : e.vars) {
            TermPtr p = e.b ? e.b->plug_namespaced(v, caller) : v;
            if (p->kind == TermKind::Var) out.insert(p->text);
        }
    return out;
}

lang::Expr SaveElem::plug(Bindings* caller) const {
    if (!b1 && !b2) return expr;
    auto plug_with = [&](Bindings* b, const TermPtr& t) { return b ? b->plug_namespaced(t, caller) : t; };
    lang::Expr out = expr;
    if (is_call(expr)) {
        std::vector<TermPtr> terms = expr.term->elems;
        if (is_equality(expr)) {
            terms[1] = plug_with(b1, terms[1]);
            terms[2] = plug_with(b2, terms[2]);
        } else {
            for (std::size_t i = 1; i < terms.size(); ++i) terms[i] = plug_with(b1, terms[i]);
        }
        out.term = with_elems(*expr.term, std::move(terms));
    } else if (expr.kind == lang::ExprKind::Term && expr.term) {
        out.term = plug_with(b1, expr.term);
    }
    for (auto& w : out.withs) w.value = plug_with(b1, w.value);
    return out;
}

lang::Body plug_query(const SaveQuery& q, Bindings* caller) {
    lang::Body out;
    if (q.empty()) {
        out.push_back(make_term_expr(make_bool(true)));
        return out;
    }
    out.reserve(q.size());
    for (const auto& e : q) out.push_back(e.plug(caller));
    return out;
}

std::pair<std::vector<TermPtr>, std::vector<TermPtr>> split_package_and_rule(const Term& path) {
    std::size_t string_prefix = 1;
    while (string_prefix < path.elems.size() && path.elems[string_prefix]->kind == TermKind::String) ++string_prefix;
    std::size_t start = 2;
    for (std::size_t i = 2; i < string_prefix; ++i) {
        const Term& t = *path.elems[i];
        if (t.kind == TermKind::String && lang::is_var_compatible(t.text)) start = i;
        else break;
    }
    start = std::min(start, path.elems.size());
    std::vector<TermPtr> pkg(path.elems.begin(), path.elems.begin() + static_cast<long>(start));
    std::vector<TermPtr> rule(path.elems.begin() + static_cast<long>(start), path.elems.end());
    if (!rule.empty() && rule[0]->kind == TermKind::String) {
        auto v = make_var(rule[0]->text);
        v->loc = rule[0]->loc;
        rule[0] = v;
    }
    return {std::move(pkg), std::move(rule)};
}

namespace {

std::string package_key(const std::vector<TermPtr>& pkg) { return ref_text(*make_ref(pkg)); }

std::vector<TermPtr> head_ref(const SupportRule& r) {
    if (!r.ref.empty()) return r.ref;
    return {make_var(r.name)};
}

}  // namespace

bool SaveSupport::exists(const Term& path) const {
    auto [pkg, rule_ref] = split_package_and_rule(path);
    auto it = index_.find(package_key(pkg));
    if (it == index_.end() || rule_ref.empty()) return false;
    const SupportModule& m = modules_[it->second];
    if (rule_ref.size() == 1) {
        for (const auto& r : m.rules)
            if (r.name == rule_ref[0]->text) return true;
        return false;
    }
    auto prefix = make_ref(rule_ref);
    for (const auto& r : m.rules)
        if (ref_has_prefix(*make_ref(head_ref(r)), *prefix)) return true;
    return false;
}

void SaveSupport::insert(const Term& path, SupportRule rule) {
    insert_by_package(split_package_and_rule(path).first, std::move(rule));
}

void SaveSupport::insert_by_package(const std::vector<TermPtr>& package, SupportRule rule) {
    std::string key = package_key(package);
    auto it = index_.find(key);
    if (it == index_.end()) {
        it = index_.emplace(key, modules_.size()).first;
        SupportModule m;
        m.package = package;
        modules_.push_back(std::move(m));
    }
    modules_[it->second].rules.push_back(std::move(rule));
}

bool InliningControl::disabled_ref(const Term& ref, bool ignore_internal) const {
    for (const auto& f : frames_) {
        if (f.internal && ignore_internal) continue;
        for (const auto& other : f.refs)
            if (ref_has_prefix(*other, ref) || ref_has_prefix(ref, *other)) return true;
    }
    return false;
}

bool InliningControl::disabled_var(const std::string& var, bool ignore_internal) const {
    for (const auto& f : frames_) {
        if (f.internal && ignore_internal) continue;
        if (!f.var.empty() && f.var == var) return true;
    }
    return false;
}

bool InliningControl::disabled(const Term& t, bool ignore_internal) const {
    if (t.kind == TermKind::Ref) return disabled_ref(t, ignore_internal);
    if (t.kind == TermKind::Var) return disabled_var(t.text, ignore_internal);
    return false;
}

}  // namespace gavel::partial
