#include "compiler/types/type_env.hpp"

#include <algorithm>
#include <cstdlib>

#include "lang/term_string.hpp"
#include "compiler/ast/terms.hpp"
#include "compiler/rule_tree.hpp"

namespace gavel::compiler::types {

using lang::Term;
using lang::TermKind;

namespace {

// The type of a node key's value (a ground path part): a scalar's type.
TypePtr key_type(const std::string& key) {
    switch (key.empty() ? '\0' : key[0]) {
        case '0': return Nl;
        case '1': return B;
        case '2': return N;
        case '3': return S;
        default: return nullptr;
    }
}

std::optional<Key> key_of_node(const std::string& key) {
    switch (key.empty() ? '\0' : key[0]) {
        case '0': return Key{Key::Kind::Null, ""};
        case '1': return Key{Key::Kind::Boolean, key == "1t" ? "true" : "false"};
        case '2': return Key{Key::Kind::Number, key.substr(1)};
        case '3': return Key{Key::Kind::String, key.substr(1)};
        default: return std::nullopt;
    }
}

// OPA's insertIntoObject: `t` at `path` below `o`, through its dynamic part.
TypePtr insert_into_object(const TypePtr& o, const std::vector<std::string>& path, std::size_t from, const TypePtr& t) {
    if (from >= path.size()) return o;
    TypePtr inner = t;
    for (std::size_t k = path.size() - 1; k > from; --k) inner = object({}, DynamicProperty{key_type(path[k]), inner});
    TypePtr key = key_type(path[from]);
    DynamicProperty dyn = o->dyn ? DynamicProperty{union_of(o->dyn->key, key), union_of(o->dyn->value, inner)}
                                 : DynamicProperty{key, inner};
    return object(o->props, dyn);
}

// Every leaf below `node` (not `node` itself) with its path from there (OPA's Leafs).
std::vector<std::pair<std::vector<std::string>, TypePtr>> leafs(const TypeTree& node) {
    std::vector<std::pair<std::vector<std::string>, TypePtr>> out;
    struct Item {
        const TypeTree* node;
        std::vector<std::string> path;
    };
    std::vector<Item> stack;
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it)
        stack.push_back({it->second.get(), {it->first}});
    while (!stack.empty()) {
        Item item = std::move(stack.back());
        stack.pop_back();
        if (item.node->leaf()) {
            out.emplace_back(std::move(item.path), item.node->value);
            continue;
        }
        for (auto it = item.node->children.rbegin(); it != item.node->children.rend(); ++it) {
            auto path = item.path;
            path.push_back(it->first);
            stack.push_back({it->second.get(), std::move(path)});
        }
    }
    return out;
}

// Where a Rego value sorts (OPA's Value.Compare) among node keys and one-of lists.
struct SortableValue {
    int rank;          // null, boolean, number, string, var, other
    Key key;           // for scalars
    std::string text;  // as printed
};

bool value_less(const SortableValue& a, const SortableValue& b) {
    if (a.rank != b.rank) return a.rank < b.rank;
    if (a.rank <= 3) return compare(a.key, b.key) < 0;
    return a.text < b.text;
}

}  // namespace

std::string node_key(const Term& part) {
    std::string key = tree_key(part);
    if (!key.empty()) return key;
    return '5' + lang::to_string(part);
}

const TypeTree* TypeTree::child(const std::string& key) const {
    auto it = children.find(key);
    return it == children.end() ? nullptr : it->second.get();
}

TypeTree* TypeTree::child(const std::string& key) {
    auto it = children.find(key);
    return it == children.end() ? nullptr : it->second.get();
}

void TypeTree::put_one(const std::string& key, TypePtr t) {
    auto& c = children[key];
    if (!c) c = std::make_unique<TypeTree>();
    c->value = std::move(t);
}

void TypeTree::put(const std::vector<std::string>& path, TypePtr t) {
    TypeTree* curr = this;
    for (const auto& key : path) {
        auto& c = curr->children[key];
        if (!c) c = std::make_unique<TypeTree>();
        curr = c.get();
    }
    curr->value = std::move(t);
}

bool TypeTree::insert(const std::vector<std::string>& path, const TypePtr& t) {
    TypeTree* curr = this;
    for (std::size_t i = 0; i < path.size(); ++i) {
        auto& c = curr->children[path[i]];
        if (!c) {
            c = std::make_unique<TypeTree>();
        } else if (c->value && i + 1 < path.size() && c->value->kind == Kind::Object) {
            // A rule below another rule's object: its type joins the object's dynamic part.
            c->value = insert_into_object(c->value, path, i + 1, t);
        }
        curr = c.get();
    }
    Replacements replaced;
    curr->value = merge_types(curr->value, t, &replaced);
    if (!replaced.empty()) {
        // The rules below hold the object OPA merged in place: they see the merged one.
        std::vector<TypeTree*> stack;
        for (auto& [key, c] : curr->children) stack.push_back(c.get());
        while (!stack.empty()) {
            TypeTree* n = stack.back();
            stack.pop_back();
            for (const auto& [old, merged] : replaced)
                if (n->value.get() == old) n->value = merged;
            for (auto& [key, c] : n->children) stack.push_back(c.get());
        }
    }
    if (is(t, Kind::Object) && !curr->children.empty()) {
        // Rules below this one are part of its object too.
        TypePtr cv = curr->value;
        for (const auto& [p, leaf] : leafs(*curr))
            if (is(cv, Kind::Object)) cv = insert_into_object(cv, p, 0, leaf);
        curr->value = cv;
    }
    return !replaced.empty();
}

EnvPtr wrap(const EnvPtr& env) {
    auto out = std::make_shared<TypeEnv>();
    out->next = env;
    return out;
}

bool is_root_document(const Term& t) { return t.kind == TermKind::Var && (t.text == "data" || t.text == "input"); }

TypePtr type_of_var(const TypeEnv& env, const std::string& key) {
    for (const TypeEnv* e = &env; e; e = e->next.get())
        if (const TypeTree* node = e->tree.child(key)) return node->value;
    return nullptr;
}

TypePtr type_of_ref(const TypeEnv& start, const Term& ref, Memo& memo) {
    const Term& head = ref.kind == TermKind::Ref ? *ref.elems[0] : ref;
    static const std::vector<lang::TermPtr> kNoParts;
    const auto& parts = ref.kind == TermKind::Ref ? ref.elems : kNoParts;
    std::size_t n = ref.kind == TermKind::Ref ? parts.size() : 1;
    std::string head_key = node_key(head);
    for (const TypeEnv* env = &start; env; env = env->next.get()) {
        const TypeTree* node = env->tree.child(head_key);
        if (!node) continue;
        std::size_t i = 1;
        bool fall_back = false;
        while (!fall_back) {
            if (i == n) return memo.extent(*node);
            const Term& part = *parts[i];
            if (node->leaf()) {
                if (!node->children.empty())
                    if (const TypeTree* c = node->child(node_key(part))) {
                        node = c;
                        ++i;
                        continue;
                    }
                return select_ref(node->value, parts, i, memo);
            }
            if (!is_constant(part)) return select_ref(memo.extent(*node), parts, i, memo);
            const TypeTree* c = node->child(node_key(part));
            if (!c) {
                fall_back = true;  // the whole ref again, in the enclosing environment
                break;
            }
            node = c;
            ++i;
        }
    }
    return is_root_document(head) ? A : nullptr;
}

TypePtr Memo::extent(const TypeTree& node) { return extent_at(node, 0); }

TypePtr Memo::extent_at(const TypeTree& node, uint32_t depth) {
    if (node.leaf()) return node.value;
    if (node.children.empty()) return object({}, DynamicProperty{S, A});
    if (auto it = extents_.find(&node); it != extents_.end()) return it->second;
    if (depth > kMaxDepth) return A;
    std::vector<StaticProperty> props;
    for (const auto& [key, child] : node.children) {
        char kind = key.empty() ? '\0' : key[0];
        if (kind != '1' && kind != '2' && kind != '3') continue;  // strings, numbers and booleans only, as OPA
        props.push_back({*key_of_node(key), extent_at(*child, depth + 1)});
    }
    TypePtr t = object(std::move(props), DynamicProperty{S, A});
    extents_.emplace(&node, t);
    return t;
}

TypePtr Memo::keys(const TypePtr& t) {
    if (!t || t->elems.size() + t->props.size() < 8) return types::keys(t);  // small: not worth remembering
    Parts& p = parts_[t.get()];
    p.type = t;
    if (!p.keys) p.keys = types::keys(t);
    return *p.keys;
}

TypePtr Memo::values(const TypePtr& t) {
    if (!t || t->elems.size() + t->props.size() < 8) return types::values(t);
    Parts& p = parts_[t.get()];
    p.type = t;
    if (!p.values) p.values = types::values(t);
    return *p.values;
}

void Memo::forget_path(const TypeTree& root, const std::vector<std::string>& path) {
    const TypeTree* node = &root;
    for (std::size_t i = 0; node; ++i) {
        extents_.erase(node);
        node = i < path.size() ? node->child(path[i]) : nullptr;
    }
    if (parts_.size() > 100000) parts_.clear();  // types never change; this only bounds the memory
}

std::optional<Key> key_of(const Term& t) {
    switch (t.kind) {
        case TermKind::Null: return Key{Key::Kind::Null, ""};
        case TermKind::Boolean: return Key{Key::Kind::Boolean, t.boolean ? "true" : "false"};
        case TermKind::Number: return Key{Key::Kind::Number, t.text};
        case TermKind::String: return Key{Key::Kind::String, t.text};
        default: return std::nullopt;
    }
}

namespace {

// OPA's types.TypeOf of a constant composite's JSON: its static shape.
TypePtr json_type(const Term& t) {
    if (auto key = key_of(t)) return type_of(*key);
    switch (t.kind) {
        case TermKind::Array:
        case TermKind::Set: {
            std::vector<TypePtr> items;
            for (const auto& e : t.elems) items.push_back(json_type(*e));
            return array(std::move(items), nullptr);
        }
        case TermKind::Object: {
            std::vector<StaticProperty> props;
            for (const auto& [k, v] : t.items)
                props.push_back({Key{Key::Kind::String, k->kind == TermKind::String ? k->text : lang::to_string(*k)},
                                 json_type(*v)});
            return object(std::move(props), std::nullopt);
        }
        default: return nullptr;
    }
}

// OPA's types.Select of a composite JSON value: only dynamic keys and set members can match it.
TypePtr select_composite(const TypePtr& t, const TypePtr& shape) {
    if (!t) return nullptr;
    switch (t->kind) {
        case Kind::Object: return t->dyn && contains(t->dyn->key, shape) ? t->dyn->value : nullptr;
        case Kind::Set:
            if (compare(t->of, shape) == 0) return t->of;
            return is(t->of, Kind::Any) && contains(t->of, shape) ? shape : nullptr;
        case Kind::Any: {
            if (t->elems.empty()) return A;
            TypePtr out;
            for (const auto& m : t->elems) out = union_of(select_composite(m, shape), out);
            return out;
        }
        default: return nullptr;
    }
}

}  // namespace

TypePtr select_constant(const TypePtr& t, const Term& part) {
    if (auto key = key_of(part)) return select(t, *key);
    if (!is_constant(part)) return nullptr;  // not JSON: a comprehension, a call
    return select_composite(t, json_type(part));
}

TypePtr select_ref(TypePtr t, const std::vector<lang::TermPtr>& parts, std::size_t from, Memo& memo) {
    for (std::size_t i = from; t && i < parts.size(); ++i) {
        const Term& part = *parts[i];
        switch (part.kind) {
            case TermKind::Var:
            case TermKind::Ref:
            case TermKind::Array:
            case TermKind::Object:
            case TermKind::Set: t = memo.values(t); break;
            default: t = select_constant(t, part);
        }
    }
    return t;
}

std::vector<std::string> one_of_node(const TypeTree& node) {
    std::vector<SortableValue> vs;
    for (const auto& [key, child] : node.children) {
        if (auto k = key_of_node(key)) {
            vs.push_back({static_cast<int>(k->kind), *k, value_string(*k)});
        } else if (!key.empty() && key[0] == '4') {
            vs.emplace_back(4, Key{}, key.substr(1));
        } else {
            vs.emplace_back(5, Key{}, key.substr(1));
        }
    }
    std::stable_sort(vs.begin(), vs.end(), value_less);
    std::vector<std::string> out;
    for (auto& v : vs) out.push_back(std::move(v.text));
    return out;
}

std::vector<std::string> one_of_type(const TypePtr& t) {
    std::vector<Key> ks;
    std::vector<const Type*> stack;
    if (t) stack.push_back(t.get());
    while (!stack.empty()) {
        const Type* x = stack.back();
        stack.pop_back();
        if (x->kind == Kind::Object) {
            for (const auto& p : x->props) ks.push_back(p.key);
        } else if (x->kind == Kind::Any) {
            for (auto it = x->elems.rbegin(); it != x->elems.rend(); ++it)
                if (*it) stack.push_back(it->get());
        }
    }
    std::stable_sort(ks.begin(), ks.end(), [](const Key& a, const Key& b) { return compare(a, b) < 0; });
    ks.erase(std::unique(ks.begin(), ks.end(), [](const Key& a, const Key& b) { return compare(a, b) == 0; }),
             ks.end());
    std::vector<std::string> out;
    for (const auto& k : ks) out.push_back(value_string(k));
    return out;
}

TypePtr merge_types(const TypePtr& a, const TypePtr& b, Replacements* replaced) {
    if (!a) return b;
    if (!b) return a;
    switch (a->kind) {
        case Kind::Object:
            if (is(b, Kind::Object) && a->props.empty() && b->props.empty() && a->dyn && b->dyn) {
                return object({}, DynamicProperty{union_of(a->dyn->key, b->dyn->key),
                                                  merge_types(a->dyn->value, b->dyn->value, replaced)});
            }
            if (is(b, Kind::Any) && a->props.empty() && a->dyn) {
                // The first object of the union without static keys takes in a's dynamic part.
                for (std::size_t i = 0; i < b->elems.size(); ++i) {
                    const TypePtr& m = b->elems[i];
                    if (!is(m, Kind::Object) || !m->props.empty() || !m->dyn) continue;
                    Type merged = *b;
                    merged.elems[i] = object({}, DynamicProperty{union_of(m->dyn->key, a->dyn->key),
                                                                 union_of(m->dyn->value, a->dyn->value)});
                    if (replaced) replaced->emplace_back(m.get(), merged.elems[i]);
                    return std::make_shared<const Type>(std::move(merged));
                }
            }
            break;
        case Kind::Set:
            if (is(b, Kind::Set)) return set(union_of(a->of, b->of));
            break;
        case Kind::Any:
            if (!is(b, Kind::Any)) return merge_types(b, a, replaced);
            break;
        default: break;
    }
    return union_of(a, b);
}

}  // namespace gavel::compiler::types
