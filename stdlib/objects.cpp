// object.get, object.keys, object.remove, object.filter, object.subset,
// object.union, object.union_n. The path-based JSON editors (json.filter,
// json.remove, json.patch) live in json_documents.cpp, walk in walk.cpp.

#include <algorithm>
#include <optional>
#include <vector>

#include "stdlib/builtin_helpers.hpp"
#include "stdlib/object_family.hpp"

namespace gavel::stdlib {

namespace {

// OPA's Value.Find: one step per path element; arrays take integer indexes,
// sets take the element itself, scalars end the walk.
const Value* find_path(const Value& root, std::span<const Value> path) {
    const Value* cur = &root;
    for (const Value& step : path) {
        if (cur->is_object()) {
            cur = cur->find(step);
        } else if (cur->is_array()) {
            int64_t i;
            if (!step.is_number() || !step.as_int64(i) || i < 0 || static_cast<std::size_t>(i) >= cur->size())
                return nullptr;
            cur = &cur->array_elements()[static_cast<std::size_t>(i)];
        } else if (cur->is_set()) {
            if (!cur->contains(step)) return nullptr;
            // The element found is the step itself (equal value).
            const auto elems = cur->set_elements();
            auto it = std::lower_bound(elems.begin(), elems.end(), step);
            cur = &*it;
        } else {
            return nullptr;
        }
        if (!cur) return nullptr;
    }
    return cur;
}

// object.remove / object.filter take their keys from an array, a set or an object's keys.
bool keys_operand(const Value& v, Value& keys) {
    if (v.is_set()) {
        keys = v;
        return true;
    }
    runtime::SetBuilder b;
    if (v.is_array()) {
        for (const auto& e : v.array_elements()) b.insert(e);
    } else if (v.is_object()) {
        for (const auto& e : v.object_entries()) b.insert(e.key);
    } else {
        return false;
    }
    keys = b.build();
    return true;
}

// object.union: keys of both are merged recursively when both values are
// objects; otherwise the right-hand value wins.
Value merge_with_overwrite(const Value& a, const Value& b) {
    if (a.size() == 0) return b;
    if (b.size() == 0) return a;
    runtime::ObjectBuilder out(a.size() + b.size());
    for (const auto& e : a.object_entries()) {
        const Value* other = b.find(e.key);
        if (!other) out.insert(e.key, e.value);
        else if (e.value.is_object() && other->is_object()) out.insert(e.key, merge_with_overwrite(e.value, *other));
        else out.insert(e.key, *other);
    }
    for (const auto& e : b.object_entries())
        if (!a.find(e.key)) out.insert(e.key, e.value);
    return out.build();
}

// object.union_n of `objects` (in order, none empty): later objects win, and
// where a key's values are objects from some point to the last, those merge
// recursively (what OPA's merge in place from the last object back comes to:
// a non-object value shadows every earlier one). Linear, not a union per
// object: each level sorts its entries by key once and looks at each once.
// nullopt when the evaluation must stop.
std::optional<Value> union_of(std::span<const Value* const> objects, BuiltinContext& ctx) {
    if (objects.size() == 1) return *objects[0];
    std::vector<const runtime::ObjectEntry*> entries;
    std::size_t total = 0;
    for (const Value* o : objects) total += o->size();
    if (ctx.spend(total) || !ctx.affords(total * sizeof(void*))) return std::nullopt;
    entries.reserve(total);
    for (const Value* o : objects)
        for (const auto& e : o->object_entries()) entries.push_back(&e);
    // Stable: entries of one key stay in the order of their objects.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const runtime::ObjectEntry* x, const runtime::ObjectEntry* y) { return x->key < y->key; });
    runtime::ObjectBuilder out;
    for (std::size_t i = 0; i < entries.size();) {
        std::size_t end = i + 1;
        while (end < entries.size() && entries[end]->key == entries[i]->key) ++end;
        const Value& key = entries[i]->key;
        std::size_t from = end - 1;  // the last value wins, or merges with the objects just before it
        while (from > i && entries[from]->value.is_object() && entries[from - 1]->value.is_object()) --from;
        if (from == end - 1) {
            out.insert(key, entries[from]->value);
        } else {
            std::vector<const Value*> nested;
            for (std::size_t j = from; j < end; ++j)
                if (entries[j]->value.size() > 0) nested.push_back(&entries[j]->value);
            if (nested.empty()) {
                out.insert(key, Value::empty_object());
            } else {
                auto merged = union_of(nested, ctx);
                if (!merged) return std::nullopt;
                out.insert(key, std::move(*merged));
            }
        }
        i = end;
    }
    return out.build();
}

bool set_subset(const Value& super, const Value& sub) {
    for (const auto& e : sub.set_elements())
        if (!super.contains(e)) return false;
    return true;
}

// The whole `sub` array appears contiguously in `super`. At worst each
// element of `super` starts a comparison as long as `sub`: each element
// compared is work, and nullopt says the evaluation must stop.
std::optional<bool> array_subset(const Value& super, const Value& sub, BuiltinContext& ctx) {
    auto hay = super.array_elements();
    auto needle = sub.array_elements();
    if (needle.size() > hay.size()) return false;
    if (needle.empty()) return true;
    for (std::size_t i = 0; i + needle.size() <= hay.size(); ++i) {
        auto stop = std::mismatch(needle.begin(), needle.end(), hay.begin() + static_cast<std::ptrdiff_t>(i)).first;
        if (ctx.spend(1 + static_cast<std::size_t>(stop - needle.begin()))) return std::nullopt;
        if (stop == needle.end()) return true;
    }
    return false;
}

std::optional<bool> object_subset(const Value& super, const Value& sub, BuiltinContext& ctx) {
    for (const auto& e : sub.object_entries()) {
        if (ctx.spend()) return std::nullopt;
        const Value* s = super.find(e.key);
        if (!s) return false;
        if (*s == e.value) continue;
        std::optional<bool> within = false;
        if (s->is_object() && e.value.is_object()) within = object_subset(*s, e.value, ctx);
        else if (s->is_set() && e.value.is_set()) within = set_subset(*s, e.value);
        else if (s->is_array() && e.value.is_array()) within = array_subset(*s, e.value, ctx);
        if (within != true) return within;
    }
    return true;
}

// OPA scans `super` counting elements that `sub` contains (duplicates count
// again) and succeeds once the count reaches |sub|; an empty `sub` is matched
// by the first element of a non-empty `super`.
bool array_set_subset(const Value& super, const Value& sub) {
    std::size_t matched = 0;
    for (const auto& e : super.array_elements()) {
        if (sub.contains(e)) ++matched;
        if (matched == sub.size()) return true;
    }
    return false;
}

}  // namespace

void register_objects(Registry& r) {
    declare(r, "object.get", 3, [](Args a, BuiltinContext&) {
        if (!a[0].is_object()) return type_error(1, "object", a[0]);
        if (!a[1].is_array()) {
            const Value* v = a[0].find(a[1]);
            return BuiltinResult::of(v ? *v : a[2]);
        }
        const Value* v = find_path(a[0], a[1].array_elements());
        return BuiltinResult::of(v ? *v : a[2]);
    });
    declare(r, "object.keys", 1, [](Args a, BuiltinContext&) {
        if (!a[0].is_object()) return type_error(1, "object", a[0]);
        runtime::SetBuilder b(a[0].size());
        for (const auto& e : a[0].object_entries()) b.insert(e.key);
        return BuiltinResult::of(b.build());
    });
    declare(r, "object.remove", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_object()) return type_error(1, "object", a[0]);
        Value keys;
        if (!keys_operand(a[1], keys)) return type_error(2, "one of {object, set, array}", a[1]);
        runtime::ObjectBuilder b(a[0].size());
        for (const auto& e : a[0].object_entries())
            if (!keys.contains(e.key)) b.insert(e.key, e.value);
        return BuiltinResult::of(b.build());
    });
    declare(r, "object.filter", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_object()) return type_error(1, "object", a[0]);
        Value keys;
        if (!keys_operand(a[1], keys)) return type_error(2, "one of {object, set, array}", a[1]);
        runtime::ObjectBuilder b(keys.size());
        for (const auto& k : keys.set_elements())
            if (const Value* v = a[0].find(k)) b.insert(k, *v);
        return BuiltinResult::of(b.build());
    });
    declare(r, "object.subset", 2, [](Args a, BuiltinContext& ctx) {
        const Value& super = a[0];
        const Value& sub = a[1];
        auto answer = [](std::optional<bool> b) {
            return b ? BuiltinResult::of(Value::boolean(*b)) : BuiltinResult::cancelled();
        };
        if (super.is_object() && sub.is_object()) return answer(object_subset(super, sub, ctx));
        if (super.is_set() && sub.is_set()) return BuiltinResult::of(Value::boolean(set_subset(super, sub)));
        if (super.is_array() && sub.is_array()) return answer(array_subset(super, sub, ctx));
        if (super.is_array() && sub.is_set()) return BuiltinResult::of(Value::boolean(array_set_subset(super, sub)));
        return BuiltinResult::type_error("both arguments object.subset must be of the same type or array and set");
    });
    declare(r, "object.union", 2, [](Args a, BuiltinContext&) {
        if (!a[0].is_object()) return type_error(1, "object", a[0]);
        if (!a[1].is_object()) return type_error(2, "object", a[1]);
        // Equal objects give the first as it is (OPA's shortcut): {"a": 0.0} with {"a": 0} is {"a": 0.0}.
        if (a[0] == a[1]) return BuiltinResult::of(a[0]);
        return BuiltinResult::of(merge_with_overwrite(a[0], a[1]));
    });
    declare(r, "object.union_n", 1, [](Args a, BuiltinContext& ctx) {
        if (!a[0].is_array()) return type_error(1, "array", a[0]);
        const auto elems = a[0].array_elements();
        std::vector<const Value*> objects;
        objects.reserve(elems.size());
        for (std::size_t i = elems.size(); i-- > 0;)  // OPA looks from the last one
            if (!elems[i].is_object()) return element_type_error(1, a[0], elems[i], "object");
        for (const auto& o : elems)
            if (o.size() > 0) objects.push_back(&o);
        if (objects.empty()) return BuiltinResult::of(Value::empty_object());
        auto merged = union_of(objects, ctx);
        if (!merged) return BuiltinResult::cancelled();
        return BuiltinResult::of(std::move(*merged));
    });

    register_json_documents(r);
    register_set_unions(r);
}

}  // namespace gavel::stdlib
