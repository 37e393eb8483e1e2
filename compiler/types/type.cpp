#include "compiler/types/type.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "lang/term_order.hpp"

namespace gavel::compiler::types {

namespace {

uint32_t depth_of(const TypePtr& t) { return t ? t->depth : 0; }

TypePtr make(Type t) {
    if (t.depth > kMaxDepth) return A;
    return std::make_shared<const Type>(std::move(t));
}

TypePtr scalar(Kind k) {
    Type t;
    t.kind = k;
    return std::make_shared<const Type>(std::move(t));
}

int order(const TypePtr& t) { return t ? static_cast<int>(t->kind) : -1; }

int compare_lists(const std::vector<TypePtr>& a, const std::vector<TypePtr>& b) {
    std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (int c = compare(a[i], b[i])) return c;
    return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

void sort_members(std::vector<TypePtr>& members) {
    std::stable_sort(members.begin(), members.end(),
                     [](const TypePtr& x, const TypePtr& y) { return compare(x, y) < 0; });
}

// OPA's Any.Merge: `any` absorbs everything; a member already there is not added twice.
TypePtr merge_into_any(const TypePtr& any, const TypePtr& other);

// OPA's Any.Union of two sorted unions.
TypePtr union_of_anys(const TypePtr& a, const TypePtr& b) {
    if (a->elems.empty()) return a;
    if (b->elems.empty()) return b;
    std::vector<TypePtr> merged;
    std::size_t i = 0, j = 0;
    while (i < a->elems.size() || j < b->elems.size()) {
        if (i == a->elems.size()) {
            merged.insert(merged.end(), b->elems.begin() + static_cast<std::ptrdiff_t>(j), b->elems.end());
            break;
        }
        if (j == b->elems.size()) {
            merged.insert(merged.end(), a->elems.begin() + static_cast<std::ptrdiff_t>(i), a->elems.end());
            break;
        }
        int c = compare(a->elems[i], b->elems[j]);
        if (c < 0) merged.push_back(a->elems[i++]);
        else if (c > 0) merged.push_back(b->elems[j++]);
        else {
            merged.push_back(a->elems[i++]);
            ++j;
        }
    }
    Type t;
    t.kind = Kind::Any;
    for (const auto& m : merged) t.depth = std::max(t.depth, depth_of(m) + 1);
    t.elems = std::move(merged);
    return make(std::move(t));
}

bool any_contains(const TypePtr& any, const TypePtr& other) {
    if (is(other, Kind::Function)) return false;
    auto it = std::lower_bound(any->elems.begin(), any->elems.end(), other,
                               [](const TypePtr& x, const TypePtr& y) { return compare(x, y) < 0; });
    if (it != any->elems.end() && compare(*it, other) == 0) return true;
    return any->elems.empty();
}

TypePtr merge_into_any(const TypePtr& any, const TypePtr& other) {
    if (is(other, Kind::Any)) return union_of_anys(any, other);
    if (any_contains(any, other)) return any;
    std::vector<TypePtr> members = any->elems;
    auto at = std::lower_bound(members.begin(), members.end(), other,
                               [](const TypePtr& x, const TypePtr& y) { return compare(x, y) < 0; });
    members.insert(at, other);
    Type t;
    t.kind = Kind::Any;
    for (const auto& m : members) t.depth = std::max(t.depth, depth_of(m) + 1);
    t.elems = std::move(members);
    return make(std::move(t));
}

// OPA's Function.Union: arities (and variadic-ness) must agree, arguments and results are unioned.
TypePtr function_union(const TypePtr& a, const TypePtr& b) {
    if (a->elems.size() != b->elems.size()) return nullptr;
    if ((a->variadic != nullptr) != (b->variadic != nullptr)) return nullptr;
    std::vector<TypePtr> args;
    for (std::size_t i = 0; i < a->elems.size(); ++i) args.push_back(union_of(a->elems[i], b->elems[i]));
    return function(std::move(args), union_of(a->of, b->of), union_of(a->variadic, b->variadic));
}

std::string list_string(const std::vector<TypePtr>& ts) {
    std::string out;
    for (std::size_t i = 0; i < ts.size(); ++i) out += (i ? ", " : "") + to_string(ts[i]);
    return out;
}

}  // namespace

const TypePtr Nl = scalar(Kind::Null);
const TypePtr B = scalar(Kind::Boolean);
const TypePtr N = scalar(Kind::Number);
const TypePtr S = scalar(Kind::String);
const TypePtr A = scalar(Kind::Any);

int compare(const Key& a, const Key& b) {
    if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
    switch (a.kind) {
        case Key::Kind::Null: return 0;
        case Key::Kind::Boolean: return a.text == b.text ? 0 : a.text == "false" ? -1 : 1;
        case Key::Kind::Number: return lang::compare_numbers(a.text, b.text);  // exact, as OPA's Compare
        case Key::Kind::String: return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
    }
    return 0;
}

std::string to_string(const Key& k) { return k.kind == Key::Kind::Null ? "<nil>" : k.text; }

std::string value_string(const Key& k) {
    switch (k.kind) {
        case Key::Kind::Null: return "null";
        case Key::Kind::String: {
            std::string out = "\"";
            for (char c : k.text) {
                if (c == '"' || c == '\\') out += '\\';
                out += c;
            }
            return out + "\"";
        }
        default: return k.text;
    }
}

TypePtr array(std::vector<TypePtr> items, TypePtr dynamic) {
    Type t;
    t.kind = Kind::Array;
    for (const auto& i : items) t.depth = std::max(t.depth, depth_of(i) + 1);
    t.depth = std::max(t.depth, depth_of(dynamic) + 1);
    t.elems = std::move(items);
    t.of = std::move(dynamic);
    return make(std::move(t));
}

TypePtr object(std::vector<StaticProperty> props, std::optional<DynamicProperty> dynamic) {
    Type t;
    t.kind = Kind::Object;
    auto by_key = [](const StaticProperty& x, const StaticProperty& y) { return compare(x.key, y.key) < 0; };
    if (!std::is_sorted(props.begin(), props.end(), by_key)) std::stable_sort(props.begin(), props.end(), by_key);
    for (const auto& p : props) t.depth = std::max(t.depth, depth_of(p.value) + 1);
    if (dynamic) t.depth = std::max({t.depth, depth_of(dynamic->key) + 1, depth_of(dynamic->value) + 1});
    t.props = std::move(props);
    t.dyn = std::move(dynamic);
    return make(std::move(t));
}

TypePtr set(TypePtr of) {
    Type t;
    t.kind = Kind::Set;
    t.depth = depth_of(of) + 1;
    t.of = std::move(of);
    return make(std::move(t));
}

TypePtr any_of(std::vector<TypePtr> members) {
    if (members.empty()) return A;
    Type t;
    t.kind = Kind::Any;
    sort_members(members);
    for (const auto& m : members) t.depth = std::max(t.depth, depth_of(m) + 1);
    t.elems = std::move(members);
    return make(std::move(t));
}

TypePtr function(std::vector<TypePtr> args, TypePtr result, TypePtr variadic) {
    Type t;
    t.kind = Kind::Function;
    for (const auto& a : args) t.depth = std::max(t.depth, depth_of(a) + 1);
    t.depth = std::max({t.depth, depth_of(result) + 1, depth_of(variadic) + 1});
    t.elems = std::move(args);
    t.of = std::move(result);
    t.variadic = std::move(variadic);
    return make(std::move(t));
}

TypePtr named_function(std::vector<TypePtr> args, std::vector<std::string> arg_names, TypePtr result,
                       std::string result_name, TypePtr variadic) {
    TypePtr f = function(std::move(args), std::move(result), std::move(variadic));
    Type t = *f;
    t.arg_names = std::move(arg_names);
    t.arg_names.resize(t.elems.size());
    t.result_name = std::move(result_name);
    return std::make_shared<const Type>(std::move(t));
}

bool is_any(const TypePtr& t) { return t && t->kind == Kind::Any && t->elems.empty(); }
bool is(const TypePtr& t, Kind k) { return t && t->kind == k; }

int compare(const TypePtr& a, const TypePtr& b) {
    int x = order(a), y = order(b);
    if (x != y) return x < y ? -1 : 1;
    if (!a || a == b) return 0;
    switch (a->kind) {
        case Kind::Null:
        case Kind::Boolean:
        case Kind::Number:
        case Kind::String: return 0;
        case Kind::Array:
            if (a->of && !b->of) return 1;
            if (b->of && !a->of) return -1;
            if (a->of && b->of)
                if (int c = compare(a->of, b->of)) return c;
            return compare_lists(a->elems, b->elems);
        case Kind::Object: {
            if (a->dyn && !b->dyn) return 1;
            if (b->dyn && !a->dyn) return -1;
            if (a->dyn && b->dyn) {
                if (int c = compare(a->dyn->key, b->dyn->key)) return c;
                if (int c = compare(a->dyn->value, b->dyn->value)) return c;
            }
            std::size_t n = std::min(a->props.size(), b->props.size());
            for (std::size_t i = 0; i < n; ++i) {
                if (int c = compare(a->props[i].key, b->props[i].key)) return c;
                if (int c = compare(a->props[i].value, b->props[i].value)) return c;
            }
            return a->props.size() < b->props.size() ? -1 : a->props.size() > b->props.size() ? 1 : 0;
        }
        case Kind::Set:
            if (!a->of && !b->of) return 0;
            if (!a->of) return -1;
            if (!b->of) return 1;
            return compare(a->of, b->of);
        case Kind::Any: return compare_lists(a->elems, b->elems);
        case Kind::Function: {
            if (a->elems.size() != b->elems.size()) return a->elems.size() < b->elems.size() ? -1 : 1;
            for (std::size_t i = 0; i < a->elems.size(); ++i)
                if (int c = compare(a->elems[i], b->elems[i])) return c;
            if (int c = compare(a->of, b->of)) return c;
            return compare(a->variadic, b->variadic);
        }
    }
    return 0;
}

bool contains(const TypePtr& a, const TypePtr& b) {
    if (is(a, Kind::Any)) return any_contains(a, b);
    return compare(a, b) == 0;
}

TypePtr union_of(const TypePtr& a, const TypePtr& b) {
    if (!a) return b;
    if (!b) return a;
    bool fa = a->kind == Kind::Function, fb = b->kind == Kind::Function;
    if (fa && fb) return function_union(a, b);
    if (fa || fb) return nullptr;
    if (a->kind == Kind::Any) return merge_into_any(a, b);
    if (b->kind == Kind::Any) return merge_into_any(b, a);
    if (compare(a, b) == 0) return a;
    return any_of({a, b});
}

void UnionBuilder::add(const TypePtr& t) {
    if (!t) return;
    auto less = [](const TypePtr& x, const TypePtr& y) { return compare(x, y) < 0; };
    auto take = [&](const TypePtr& x) {
        if (is(x, Kind::Any) && !x->elems.empty()) {
            state_ = State::Many;
            many_ = x->elems;
            one_ = nullptr;
        } else {
            state_ = State::One;
            one_ = x;
        }
    };
    auto insert = [&](const TypePtr& x) {  // into Many, as Any.Merge
        auto it = std::lower_bound(many_.begin(), many_.end(), x, less);
        if (it == many_.end() || compare(*it, x) != 0) many_.insert(it, x);
    };
    switch (state_) {
        case State::Nothing: take(t); return;
        case State::One: {
            bool fa = one_->kind == Kind::Function, fb = t->kind == Kind::Function;
            if (fa || fb) {
                TypePtr u = union_of(one_, t);  // functions: their union; a function and a value: nothing
                if (u) take(u);
                else state_ = State::Nothing, one_ = nullptr;
                return;
            }
            if (is_any(one_)) return;  // `any` absorbs everything
            if (t->kind == Kind::Any) {
                if (t->elems.empty()) {
                    one_ = t;
                    return;
                }
                TypePtr previous = one_;
                take(t);
                insert(previous);
                return;
            }
            if (compare(one_, t) == 0) return;
            TypePtr previous = one_;
            state_ = State::Many;
            one_ = nullptr;
            many_ = {previous, t};
            std::stable_sort(many_.begin(), many_.end(), less);
            return;
        }
        case State::Many:
            if (t->kind == Kind::Function) {
                state_ = State::Nothing;
                many_.clear();
                return;
            }
            if (t->kind == Kind::Any) {
                if (t->elems.empty()) {
                    state_ = State::One;
                    one_ = t;
                    many_.clear();
                    return;
                }
                for (const auto& m : t->elems) insert(m);
                return;
            }
            insert(t);
            return;
    }
}

TypePtr UnionBuilder::result() const {
    switch (state_) {
        case State::Nothing: return nullptr;
        case State::One: return one_;
        case State::Many: {
            Type t;
            t.kind = Kind::Any;
            for (const auto& m : many_) t.depth = std::max(t.depth, depth_of(m) + 1);
            t.elems = many_;
            return make(std::move(t));
        }
    }
    return nullptr;
}

TypePtr select(const TypePtr& t, const Key& key) {
    if (!t) return nullptr;
    switch (t->kind) {
        case Kind::Array: {
            // Go's json.Number.Int64: an integer written as such, no fraction or exponent.
            if (key.kind != Key::Kind::Number || key.text.empty()) return nullptr;
            char* end = nullptr;
            errno = 0;
            long long pos = std::strtoll(key.text.c_str(), &end, 10);
            if (errno != 0 || *end != '\0' || pos < 0) return nullptr;
            if (static_cast<std::size_t>(pos) < t->elems.size()) return t->elems[static_cast<std::size_t>(pos)];
            return t->of;
        }
        case Kind::Object: {
            auto it = std::lower_bound(t->props.begin(), t->props.end(), key,
                                       [](const StaticProperty& p, const Key& k) { return compare(p.key, k) < 0; });
            if (it != t->props.end() && compare(it->key, key) == 0) return it->value;
            if (t->dyn && contains(t->dyn->key, type_of(key))) return t->dyn->value;
            return nullptr;
        }
        case Kind::Set: {
            TypePtr tpe = type_of(key);
            if (compare(t->of, tpe) == 0) return t->of;
            if (is(t->of, Kind::Any) && any_contains(t->of, tpe)) return tpe;
            return nullptr;
        }
        case Kind::Any: {
            if (t->elems.empty()) return A;
            UnionBuilder out;
            for (const auto& m : t->elems) out.add(select(m, key));
            return out.result();
        }
        default: return nullptr;
    }
}

TypePtr keys(const TypePtr& t) {
    if (!t) return nullptr;
    switch (t->kind) {
        case Kind::Array: return N;
        case Kind::Object: {
            UnionBuilder out;
            for (const auto& p : t->props) out.add(type_of(p.key));
            if (t->dyn) out.add(t->dyn->key);
            return out.result();
        }
        case Kind::Set: return t->of;
        case Kind::Any: {
            if (t->elems.empty()) return A;
            UnionBuilder out;
            for (const auto& m : t->elems) out.add(keys(m));
            return out.result();
        }
        default: return nullptr;
    }
}

TypePtr values(const TypePtr& t) {
    if (!t) return nullptr;
    switch (t->kind) {
        case Kind::Array: {
            UnionBuilder out;
            for (const auto& e : t->elems) out.add(e);
            out.add(t->of);
            return out.result();
        }
        case Kind::Object: {
            UnionBuilder out;
            for (const auto& p : t->props) out.add(p.value);
            if (t->dyn) out.add(t->dyn->value);
            return out.result();
        }
        case Kind::Set: return t->of;
        case Kind::Any: {
            if (t->elems.empty()) return A;
            UnionBuilder out;
            for (const auto& m : t->elems) out.add(values(m));
            return out.result();
        }
        default: return nullptr;
    }
}

bool is_nil(const TypePtr& t) {
    if (!t) return true;
    switch (t->kind) {
        case Kind::Function:
            for (const auto& a : t->elems)
                if (is_nil(a)) return true;
            return is_nil(t->of);
        case Kind::Array:
            for (const auto& e : t->elems)
                if (is_nil(e)) return true;
            return t->of && is_nil(t->of);
        case Kind::Object:
            for (const auto& p : t->props)
                if (is_nil(p.value)) return true;
            return t->dyn && (is_nil(t->dyn->key) || is_nil(t->dyn->value));
        case Kind::Set: return is_nil(t->of);
        default: return false;
    }
}

TypePtr type_of(const Key& k) {
    switch (k.kind) {
        case Key::Kind::Null: return Nl;
        case Key::Kind::Boolean: return B;
        case Key::Kind::Number: return N;
        case Key::Kind::String: return S;
    }
    return nullptr;
}

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::Null: return "null";
        case Kind::Boolean: return "boolean";
        case Kind::Number: return "number";
        case Kind::String: return "string";
        case Kind::Array: return "array";
        case Kind::Object: return "object";
        case Kind::Set: return "set";
        case Kind::Any: return "any";
        case Kind::Function: return "function";
    }
    return "any";
}

std::string to_string(const TypePtr& t) {
    if (!t) return "???";
    switch (t->kind) {
        case Kind::Null:
        case Kind::Boolean:
        case Kind::Number:
        case Kind::String: return kind_name(t->kind);
        case Kind::Any: return t->elems.empty() ? "any" : "any<" + list_string(t->elems) + ">";
        case Kind::Set: return "set[" + to_string(t->of) + "]";
        case Kind::Array: {
            std::string out = "array";
            if (!t->elems.empty()) out += "<" + list_string(t->elems) + ">";
            if (t->of) out += "[" + to_string(t->of) + "]";
            return out;
        }
        case Kind::Object: {
            std::string out = "object";
            if (!t->props.empty()) {
                out += "<";
                for (std::size_t i = 0; i < t->props.size(); ++i)
                    out += (i ? ", " : "") + to_string(t->props[i].key) + ": " + to_string(t->props[i].value);
                out += ">";
            }
            if (t->dyn) out += "[" + to_string(t->dyn->key) + ": " + to_string(t->dyn->value) + "]";
            return out;
        }
        case Kind::Function: return args_string(*t, false) + " => " + to_string(t->of);
    }
    return "???";
}

std::string args_string(const Type& fn, bool named, bool with_result) {
    auto shown = [&](const TypePtr& t, const std::string& name) {
        return named && !name.empty() ? name + ": " + to_string(t) : to_string(t);
    };
    std::string out = "(";
    for (std::size_t i = 0; i < fn.elems.size(); ++i)
        out += (i ? ", " : "") + shown(fn.elems[i], i < fn.arg_names.size() ? fn.arg_names[i] : std::string());
    bool any_listed = !fn.elems.empty();
    if (with_result && fn.of) {
        out += (any_listed ? ", " : "") + shown(fn.of, fn.result_name);
        any_listed = true;
    }
    if (fn.variadic) out += (any_listed ? ", " : "") + to_string(fn.variadic) + "...";
    return out + ")";
}

}  // namespace gavel::compiler::types
