#include "engine/partial/terms.hpp"

#include <algorithm>

#include "lang/ground.hpp"
#include "runtime/eval/term_values.hpp"
#include "runtime/number.hpp"

namespace gavel::partial {

using runtime::Value;

namespace {

int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// OPA's sortOrder of a term's value.
int kind_order(TermKind k) {
    switch (k) {
        case TermKind::Null: return 0;
        case TermKind::Boolean: return 1;
        case TermKind::Number: return 2;
        case TermKind::String: return 3;
        case TermKind::Var: return 4;
        case TermKind::Ref: return 5;
        case TermKind::Array: return 6;
        case TermKind::Object: return 7;
        case TermKind::Set: return 8;
        case TermKind::ArrayComprehension: return 9;
        case TermKind::ObjectComprehension: return 10;
        case TermKind::SetComprehension: return 11;
        case TermKind::Call: return 12;
        case TermKind::Template: return 13;
    }
    return 14;
}

int compare_numbers(const Term& a, const Term& b) {
    if (a.text == b.text) return 0;
    auto x = runtime::Number::parse(a.text), y = runtime::Number::parse(b.text);
    if (!x.ok || !y.ok) return sign(a.text.compare(b.text));
    return sign(compare(Value::number(std::move(x.value)), Value::number(std::move(y.value))));
}

int compare_slices(const std::vector<TermPtr>& a, const std::vector<TermPtr>& b) {
    std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (int c = compare(*a[i], *b[i])) return c;
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

int compare_ptr(const TermPtr& a, const TermPtr& b) {
    if (!a || !b) return a ? 1 : (b ? -1 : 0);
    return compare(*a, *b);
}

bool less(const TermPtr& a, const TermPtr& b) { return compare(*a, *b) < 0; }

bool sorted_unique(const std::vector<TermPtr>& elems) {
    for (std::size_t i = 1; i < elems.size(); ++i)
        if (compare(*elems[i - 1], *elems[i]) >= 0) return false;
    return true;
}

bool sorted_unique(const std::vector<Item>& items) {
    for (std::size_t i = 1; i < items.size(); ++i)
        if (compare(*items[i - 1].first, *items[i].first) >= 0) return false;
    return true;
}

}  // namespace

int compare(const Term& a, const Term& b) {
    if (&a == &b) return 0;
    int oa = kind_order(a.kind), ob = kind_order(b.kind);
    if (oa != ob) return oa < ob ? -1 : 1;
    switch (a.kind) {
        case TermKind::Null: return 0;
        case TermKind::Boolean: return a.boolean == b.boolean ? 0 : (a.boolean ? 1 : -1);
        case TermKind::Number: return compare_numbers(a, b);
        case TermKind::String:
        case TermKind::Var: return sign(a.text.compare(b.text));
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Call: return compare_slices(a.elems, b.elems);
        case TermKind::Set: return compare_slices(sorted_elems(a), sorted_elems(b));
        case TermKind::Object: {
            auto x = sorted_items(a), y = sorted_items(b);
            std::size_t n = std::min(x.size(), y.size());
            for (std::size_t i = 0; i < n; ++i) {
                if (int c = compare(*x[i].first, *y[i].first)) return c;
                if (int c = compare(*x[i].second, *y[i].second)) return c;
            }
            return x.size() == y.size() ? 0 : (x.size() < y.size() ? -1 : 1);
        }
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension:
            if (int c = compare_ptr(a.key, b.key)) return c;
            if (int c = compare_ptr(a.value, b.value)) return c;
            return compare_bodies(*a.body, *b.body);
        case TermKind::Template: return compare_bodies(*a.body, *b.body);
    }
    return 0;
}

namespace {

int expr_order(const Expr& e) {
    switch (e.kind) {
        case lang::ExprKind::Some: return 0;
        case lang::ExprKind::Every: return 3;
        default: return is_call(e) ? 2 : 1;
    }
}

int compare_withs(const std::vector<lang::With>& a, const std::vector<lang::With>& b) {
    std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (int c = compare_ptr(a[i].target, b[i].target)) return c;
        if (int c = compare_ptr(a[i].value, b[i].value)) return c;
    }
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

}  // namespace

int compare_exprs(const Expr& a, const Expr& b) {
    int oa = expr_order(a), ob = expr_order(b);
    if (oa != ob) return oa < ob ? -1 : 1;
    if (a.negated != b.negated) return a.negated ? 1 : -1;
    if (a.kind == lang::ExprKind::Every) {
        if (int c = compare_ptr(a.every.key, b.every.key)) return c;
        if (int c = compare_ptr(a.every.value, b.every.value)) return c;
        if (int c = compare_ptr(a.every.domain, b.every.domain)) return c;
        if (int c = compare_bodies(*a.every.body, *b.every.body)) return c;
    } else if (a.term && b.term) {
        if (int c = compare(*a.term, *b.term)) return c;
    }
    return compare_withs(a.withs, b.withs);
}

int compare_bodies(const Body& a, const Body& b) {
    std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (int c = compare_exprs(a[i], b[i])) return c;
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

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
    if (!sorted_unique(elems)) {
        std::stable_sort(elems.begin(), elems.end(), less);
        elems.erase(
            std::unique(elems.begin(), elems.end(), [](const TermPtr& x, const TermPtr& y) { return equal(*x, *y); }),
            elems.end());
    }
    return make_with(TermKind::Set, std::move(elems));
}

TermPtr make_object(std::vector<Item> items) {
    auto t = std::make_shared<Term>();
    t->kind = TermKind::Object;
    if (!sorted_unique(items)) {
        std::stable_sort(items.begin(), items.end(),
                         [](const Item& x, const Item& y) { return less(x.first, y.first); });
        std::vector<Item> out;
        for (auto& item : items) {
            if (!out.empty() && equal(*out.back().first, *item.first)) out.back().second = std::move(item.second);
            else out.push_back(std::move(item));
        }
        items = std::move(out);
    }
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

std::vector<TermPtr> sorted_elems(const Term& set) {
    if (sorted_unique(set.elems)) return set.elems;
    std::vector<TermPtr> out = set.elems;
    std::stable_sort(out.begin(), out.end(), less);
    out.erase(std::unique(out.begin(), out.end(), [](const TermPtr& x, const TermPtr& y) { return equal(*x, *y); }),
              out.end());
    return out;
}

std::vector<Item> sorted_items(const Term& object) {
    if (sorted_unique(object.items)) return object.items;
    std::vector<Item> items = object.items;
    std::stable_sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return less(x.first, y.first); });
    std::vector<Item> out;
    for (auto& item : items) {
        if (!out.empty() && equal(*out.back().first, *item.first)) out.back().second = std::move(item.second);
        else out.push_back(std::move(item));
    }
    return out;
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
