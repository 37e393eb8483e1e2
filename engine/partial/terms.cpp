#include "engine/partial/terms.hpp"

#include <algorithm>

#include "lang/ground.hpp"
#include "runtime/eval/term_values.hpp"
#include "runtime/number.hpp"

namespace gavel::partial {

using runtime::Value;

bool is_var(const Term& t, std::string_view name) { return t.kind == TermKind::Var && t.text == name; }

bool is_root_document(const Term& t) { return is_var(t, "data") || is_var(t, "input"); }

TermPtr make_var(std::string name) {
    auto t = std::make_shared<Term>();
    t->kind = TermKind::Var;
    t->text = std::move(name);
    return t;
}

TermPtr make_string(std::string s) {
    auto t = std::make_shared<Term>();
    t->kind = TermKind::String;
    t->text = std::move(s);
    return t;
}

TermPtr make_bool(bool b) {
    auto t = std::make_shared<Term>();
    t->kind = TermKind::Boolean;
    t->boolean = b;
    return t;
}

TermPtr make_int(int64_t i) {
    auto t = std::make_shared<Term>();
    t->kind = TermKind::Number;
    t->text = std::to_string(i);
    return t;
}

TermPtr make_null() {
    auto t = std::make_shared<Term>();
    t->kind = TermKind::Null;
    return t;
}

namespace {

TermPtr make_with(TermKind kind, std::vector<TermPtr> elems) {
    auto t = std::make_shared<Term>();
    t->kind = kind;
    t->elems = std::move(elems);
    return t;
}

}  // namespace

TermPtr make_ref(std::vector<TermPtr> parts) { return make_with(TermKind::Ref, std::move(parts)); }
TermPtr make_array(std::vector<TermPtr> elems) { return make_with(TermKind::Array, std::move(elems)); }
TermPtr make_call(std::vector<TermPtr> parts) { return make_with(TermKind::Call, std::move(parts)); }

TermPtr make_set(std::vector<TermPtr> elems) {
    lang::sort_set_elems(elems);
    return make_with(TermKind::Set, std::move(elems));
}

TermPtr make_object(std::vector<Item> items) {
    auto t = std::make_shared<Term>();
    t->kind = TermKind::Object;
    lang::sort_object_items(items);
    t->items = std::move(items);
    return t;
}

TermPtr with_elems(const Term& t, std::vector<TermPtr> elems) {
    if (t.kind == TermKind::Set) return make_set(std::move(elems));
    auto c = std::make_shared<Term>();
    c->kind = t.kind;
    c->loc = t.loc;
    c->boolean = t.boolean;
    c->elems = std::move(elems);
    return c;
}

TermPtr with_items(const Term& t, std::vector<Item> items) {
    auto c = make_object(std::move(items));
    c->loc = t.loc;
    return c;
}

TermPtr object_get(const Term& object, const Term& key) {
    // The last of repeated keys wins, as OPA's object insert keeps it.
    TermPtr found;
    for (const auto& [k, v] : object.items)
        if (equal(*k, key)) found = v;
    return found;
}

bool set_contains(const Term& set, const Term& elem) {
    for (const auto& e : set.elems)
        if (equal(*e, elem)) return true;
    return false;
}

TermPtr from_value(const Value& v) {
    switch (v.kind()) {
        case runtime::Kind::Null: return make_null();
        case runtime::Kind::Boolean: return make_bool(v.as_bool());
        case runtime::Kind::Number: {
            auto t = std::make_shared<Term>();
            t->kind = TermKind::Number;
            t->text = v.as_number().to_string();
            return t;
        }
        case runtime::Kind::String: return make_string(std::string(v.as_string()));
        case runtime::Kind::Array: {
            std::vector<TermPtr> elems;
            elems.reserve(v.size());
            for (const auto& e : v.array_elements()) elems.push_back(from_value(e));
            return make_array(std::move(elems));
        }
        case runtime::Kind::Set: {
            // Values keep OPA's order already.
            std::vector<TermPtr> elems;
            elems.reserve(v.size());
            for (const auto& e : v.set_elements()) elems.push_back(from_value(e));
            return make_with(TermKind::Set, std::move(elems));
        }
        case runtime::Kind::Object: {
            auto t = std::make_shared<Term>();
            t->kind = TermKind::Object;
            t->items.reserve(v.size());
            for (const auto& e : v.object_entries()) t->items.emplace_back(from_value(e.key), from_value(e.value));
            return t;
        }
    }
    return make_null();
}

std::optional<Value> to_value(const Term& t) {
    auto v = eval::constant_value(t);
    if (!v.ok) return std::nullopt;
    return std::move(v.value);
}

bool ref_has_prefix(const Term& ref, const Term& prefix) {
    if (prefix.elems.size() > ref.elems.size()) return false;
    for (std::size_t i = 0; i < prefix.elems.size(); ++i)
        if (!equal(*ref.elems[i], *prefix.elems[i])) return false;
    return true;
}

TermPtr ref_prefix(const Term& ref, std::size_t n) {
    n = std::min(n, ref.elems.size());
    return make_ref(std::vector<TermPtr>(ref.elems.begin(), ref.elems.begin() + static_cast<long>(n)));
}

TermPtr ref_ground_prefix(const TermPtr& ref) {
    if (is_ground(*ref)) return ref;
    std::size_t i = 1;
    while (i < ref->elems.size() && is_ground(*ref->elems[i])) ++i;
    return ref_prefix(*ref, i);
}

TermPtr ref_constant_prefix(const TermPtr& ref) {
    if (!ref->elems.empty() && ref->elems[0]->kind == TermKind::Call) return ref_prefix(*ref, 0);
    for (std::size_t i = 1; i < ref->elems.size(); ++i)
        if (!is_constant(*ref->elems[i])) return ref_prefix(*ref, i);
    return ref;
}

TermPtr ref_concat(const Term& ref, const std::vector<TermPtr>& parts, std::size_t from) {
    std::vector<TermPtr> out = ref.elems;
    for (std::size_t i = from; i < parts.size(); ++i) out.push_back(parts[i]);
    return make_ref(std::move(out));
}

TermPtr ref_insert(const Term& ref, const TermPtr& part, std::size_t pos) {
    std::vector<TermPtr> out = ref.elems;
    out.insert(out.begin() + static_cast<long>(std::min(pos, out.size())), part);
    return make_ref(std::move(out));
}

bool ref_is_nested(const Term& ref) {
    for (const auto& p : ref.elems)
        if (p->kind == TermKind::Ref) return true;
    return false;
}

TermPtr as_ref(const TermPtr& t) {
    if (t->kind == TermKind::Ref) return t;
    return make_ref({t});
}

bool is_call(const Expr& e) {
    return e.kind == lang::ExprKind::Term && e.term && e.term->kind == TermKind::Call && !e.call_value;
}

bool is_every(const Expr& e) { return e.kind == lang::ExprKind::Every; }

const TermPtr& operator_term(const Expr& e) { return e.term->elems[0]; }

std::string operator_name(const Expr& e) { return ref_text(*operator_term(e)); }

bool is_equality(const Expr& e) {
    if (!is_call(e)) return false;
    const Term& op = *operator_term(e);
    return op.kind == TermKind::Ref && op.elems.size() == 1 && is_var(*op.elems[0], "eq");
}

std::size_t operand_count(const Expr& e) { return is_call(e) ? e.term->elems.size() - 1 : 0; }

const TermPtr& operand(const Expr& e, std::size_t i) { return e.term->elems[i + 1]; }

Expr make_call_expr(std::vector<TermPtr> terms) {
    Expr e;
    e.term = make_call(std::move(terms));
    return e;
}

Expr make_equality(TermPtr a, TermPtr b) {
    return make_call_expr({make_ref({make_var("eq")}), std::move(a), std::move(b)});
}

Expr make_term_expr(TermPtr t) {
    Expr e;
    e.call_value = t->kind == TermKind::Call;
    e.term = std::move(t);
    return e;
}

std::string ref_text(const Term& ref) {
    if (ref.kind == TermKind::Var) return ref.text;
    std::string out;
    for (std::size_t i = 0; i < ref.elems.size(); ++i) {
        const Term& p = *ref.elems[i];
        if (i == 0 && p.kind == TermKind::Var) {
            out += p.text;
        } else if (p.kind == TermKind::String) {
            out += "." + p.text;
        } else if (p.kind == TermKind::Var) {
            out += "[" + p.text + "]";
        } else if (p.kind == TermKind::Number) {
            out += "[" + p.text + "]";
        } else {
            out += "[...]";
        }
    }
    return out;
}

}  // namespace gavel::partial
