#include "lang/term_order.hpp"

#include <algorithm>
#include <string>
#include <string_view>

namespace gavel::lang {

namespace {

int sign_of(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

template <class T>
int compare_sizes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

// A number literal as sign, significant digits and exponent: value = 0.digits * 10^exp.
struct Decimal {
    int sign = 0;        // -1, 0, 1
    std::string digits;  // no leading or trailing zeros
    long long exp = 0;
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

// OPA's sortOrder of a term's value.
int kind_order(TermKind k) {
    switch (k) {
        case TermKind::Null: return 0;
        case TermKind::Boolean: return 1;
        case TermKind::Number: return 2;
        case TermKind::String: return 3;
        case TermKind::Template: return 4;
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

int compare_slices(const std::vector<TermPtr>& a, const std::vector<TermPtr>& b) {
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (int c = compare_terms(a[i], b[i])) return c;
    return compare_sizes(a, b);
}

int compare_bodies(const Body* a, const Body* b) {
    if (!a || !b) return a == b ? 0 : (a ? 1 : -1);
    return compare_bodies(*a, *b);
}

// OPA's Expr.sortOrder: some, a term, a call, every; our and/or shapes last.
int expr_order(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Some: return 0;
        case ExprKind::Term: return e.term && e.term->kind == TermKind::Call && !e.call_value ? 2 : 1;
        case ExprKind::Every: return 3;
        default: return 4;
    }
}

bool less(const TermPtr& a, const TermPtr& b) { return compare_terms(a, b) < 0; }
bool same(const TermPtr& a, const TermPtr& b) { return compare_terms(a, b) == 0; }

bool sorted_unique(const std::vector<TermPtr>& elems) {
    for (std::size_t i = 1; i < elems.size(); ++i)
        if (compare_terms(elems[i - 1], elems[i]) >= 0) return false;
    return true;
}

bool sorted_unique(const std::vector<std::pair<TermPtr, TermPtr>>& items) {
    for (std::size_t i = 1; i < items.size(); ++i)
        if (compare_terms(items[i - 1].first, items[i].first) >= 0) return false;
    return true;
}

}  // namespace

int compare_numbers(std::string_view a, std::string_view b) {
    if (a == b) return 0;
    Decimal x = parse_decimal(a), y = parse_decimal(b);
    if (x.sign != y.sign) return x.sign < y.sign ? -1 : 1;
    if (x.sign == 0) return 0;
    int magnitude = 0;
    if (x.exp != y.exp) magnitude = x.exp < y.exp ? -1 : 1;
    else magnitude = sign_of(x.digits.compare(y.digits));  // no trailing zeros: plain comparison is numeric
    return x.sign * magnitude;
}

int compare_terms(const TermPtr& a, const TermPtr& b) {
    if (!a || !b) return a == b ? 0 : (a ? 1 : -1);
    return compare_terms(*a, *b);
}

int compare_terms(const Term& a, const Term& b) {
    if (&a == &b) return 0;
    int oa = kind_order(a.kind), ob = kind_order(b.kind);
    if (oa != ob) return oa < ob ? -1 : 1;
    switch (a.kind) {
        case TermKind::Null: return 0;
        case TermKind::Boolean: return a.boolean == b.boolean ? 0 : (a.boolean ? 1 : -1);
        case TermKind::Number: return compare_numbers(a.text, b.text);
        case TermKind::String:
        case TermKind::Var: return sign_of(a.text.compare(b.text));
        case TermKind::Ref:
        case TermKind::Array:
        case TermKind::Call: return compare_slices(a.elems, b.elems);
        case TermKind::Set: return compare_slices(sorted_set_elems(a), sorted_set_elems(b));
        case TermKind::Object: {
            auto x = sorted_object_items(a), y = sorted_object_items(b);
            for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
                if (int c = compare_terms(x[i].first, y[i].first)) return c;
                if (int c = compare_terms(x[i].second, y[i].second)) return c;
            }
            return compare_sizes(x, y);
        }
        case TermKind::ArrayComprehension:
        case TermKind::SetComprehension:
        case TermKind::ObjectComprehension:
            if (int c = compare_terms(a.key, b.key)) return c;
            if (int c = compare_terms(a.value, b.value)) return c;
            return compare_bodies(a.body.get(), b.body.get());
        case TermKind::Template: return compare_bodies(a.body.get(), b.body.get());
    }
    return 0;
}

int compare_exprs(const Expr& a, const Expr& b) {
    if (int oa = expr_order(a), ob = expr_order(b); oa != ob) return oa < ob ? -1 : 1;
    if (a.negated != b.negated) return a.negated ? 1 : -1;
    switch (a.kind) {
        case ExprKind::Term:
            if (int c = compare_terms(a.term, b.term)) return c;
            break;
        case ExprKind::Some:
            if (int c = compare_slices(a.some.vars, b.some.vars)) return c;
            if (int c = compare_terms(a.some.in_call, b.some.in_call)) return c;
            break;
        case ExprKind::Every:
            if (int c = compare_terms(a.every.key, b.every.key)) return c;
            if (int c = compare_terms(a.every.value, b.every.value)) return c;
            if (int c = compare_terms(a.every.domain, b.every.domain)) return c;
            if (int c = compare_bodies(a.every.body.get(), b.every.body.get())) return c;
            break;
        default:
            // and/or literals and braced groups: no OPA order to follow; source position keeps it deterministic.
            if (a.loc.offset != b.loc.offset) return a.loc.offset < b.loc.offset ? -1 : 1;
            break;
    }
    for (std::size_t i = 0; i < std::min(a.withs.size(), b.withs.size()); ++i) {
        if (int c = compare_terms(a.withs[i].target, b.withs[i].target)) return c;
        if (int c = compare_terms(a.withs[i].value, b.withs[i].value)) return c;
    }
    return compare_sizes(a.withs, b.withs);
}

int compare_bodies(const Body& a, const Body& b) {
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (int c = compare_exprs(a[i], b[i])) return c;
    return compare_sizes(a, b);
}

// Sorting is skipped for elements already in order (partial evaluation keeps its sets sorted).
void stable_sort_terms(std::vector<TermPtr>& terms) { std::stable_sort(terms.begin(), terms.end(), less); }

void stable_sort_items(std::vector<std::pair<TermPtr, TermPtr>>& items) {
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return less(a.first, b.first); });
}

void sort_set_elems(std::vector<TermPtr>& elems) {
    if (sorted_unique(elems)) return;
    drop_repeated_elems(elems);
    std::stable_sort(elems.begin(), elems.end(), less);
}

std::vector<TermPtr> sorted_set_elems(const Term& set) {
    std::vector<TermPtr> out = set.elems;
    sort_set_elems(out);
    return out;
}

void sort_object_items(std::vector<std::pair<TermPtr, TermPtr>>& items) {
    if (sorted_unique(items)) return;
    drop_repeated_keys(items);
    std::stable_sort(items.begin(), items.end(), [](const auto& x, const auto& y) { return less(x.first, y.first); });
}

std::vector<std::pair<TermPtr, TermPtr>> sorted_object_items(const Term& object) {
    std::vector<std::pair<TermPtr, TermPtr>> out = object.items;
    sort_object_items(out);
    return out;
}

namespace {

// Go's json.Number(text).Int64() succeeds: an optional sign and decimal digits within int64.
bool written_int64(std::string_view text) {
    std::string_view digits = text;
    if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
    if (digits.empty() || digits.size() > 19) return false;
    for (char c : digits)
        if (c < '0' || c > '9') return false;
    if (digits.size() < 19) return true;
    return digits <=
           (text[0] == '-' ? std::string_view("9223372036854775808") : std::string_view("9223372036854775807"));
}

// Whether OPA's set and object insert take `inserted` for the `existing` element
// or key: terms that compare equal, except that a number written as an integer
// (json.Number's Int64 reads it) matches only numbers written so, while any
// other number matches every number of its value. So {2.0, 2} has two
// elements and {2, 2.0} one (ast/term.go set.insert, object.insert).
bool inserted_matches(const Term& existing, const Term& inserted) {
    if (inserted.kind != TermKind::Number || existing.kind != TermKind::Number)
        return compare_terms(existing, inserted) == 0;
    if (written_int64(inserted.text) && !written_int64(existing.text)) return false;
    return compare_numbers(existing.text, inserted.text) == 0;
}

// For each of `n` terms the kept position it repeats, or itself when it is kept.
// Where a term matches several kept ones (2.00 after 2.0 and 2), OPA's set finds
// the earliest (open addressing), its object the latest (each hash bucket's list
// starts with the newest key): `newest_first`.
template <class TermAt>
std::vector<std::size_t> repeated_of(std::size_t n, TermAt term_at, bool newest_first) {
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return less(term_at(x), term_at(y)); });
    std::vector<std::size_t> same_as(n);
    std::vector<std::size_t> kept;  // of the current group of equal-ordered terms
    for (std::size_t g = 0; g < n; ++g) {
        std::size_t i = order[g];
        if (g > 0 && !same(term_at(order[g - 1]), term_at(i))) kept.clear();
        same_as[i] = i;
        for (std::size_t k : kept) {
            if (!inserted_matches(*term_at(k), *term_at(i))) continue;
            same_as[i] = k;
            if (!newest_first) break;
        }
        if (same_as[i] == i) kept.push_back(i);
    }
    return same_as;
}

}  // namespace

void drop_repeated_elems(std::vector<TermPtr>& elems) {
    if (elems.size() < 2) return;
    auto same_as = repeated_of(
        elems.size(), [&](std::size_t i) -> const TermPtr& { return elems[i]; }, false);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < elems.size(); ++i)
        if (same_as[i] == i) elems[kept++] = std::move(elems[i]);
    elems.resize(kept);
}

void drop_repeated_keys(std::vector<std::pair<TermPtr, TermPtr>>& items) {
    if (items.size() < 2) return;
    auto same_as = repeated_of(
        items.size(), [&](std::size_t i) -> const TermPtr& { return items[i].first; }, true);
    for (std::size_t i = 0; i < items.size(); ++i)  // in written order: the last value written wins
        if (same_as[i] != i) items[same_as[i]].second = std::move(items[i].second);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < items.size(); ++i)
        if (same_as[i] == i) items[kept++] = std::move(items[i]);
    items.resize(kept);
}

}  // namespace gavel::lang
