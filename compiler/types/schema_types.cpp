#include "compiler/types/schema_types.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "compiler/types/json_schema.hpp"

namespace gavel::compiler::types {

namespace {

bool has(const std::vector<std::string>& types, const char* t) {
    return std::find(types.begin(), types.end(), t) != types.end();
}

// gojsonschema's Types.String(), which merges compare.
std::string type_string(const std::vector<std::string>& types) {
    if (types.empty()) return "Undefined";
    if (types.size() == 1) return types[0];
    std::string out = "[";
    for (std::size_t i = 0; i < types.size(); ++i) out += (i ? "," : "") + types[i];
    return out + "]";
}

// What merging takes a schema's type to be: properties imply an object, items an array.
void add_implied_type(SubSchema& s) {
    if (!s.properties.empty()) {
        if (!has(s.types, "object")) s.types.push_back("object");
    } else if (!s.items.empty()) {
        if (!has(s.types, "array")) s.types.push_back("array");
    }
}

// Tree size of a type (shared parts counted each time they appear), saturating at `cap`.
std::size_t tree_size(const TypePtr& t, std::unordered_map<const Type*, std::size_t>& memo, std::size_t cap) {
    if (!t) return 0;
    if (auto it = memo.find(t.get()); it != memo.end()) return it->second;
    std::size_t n = 1;
    auto add = [&](const TypePtr& c) { n = std::min(cap, n + tree_size(c, memo, cap)); };
    for (const auto& e : t->elems) add(e);
    add(t->of);
    for (const auto& p : t->props) add(p.value);
    if (t->dyn) {
        add(t->dyn->key);
        add(t->dyn->value);
    }
    memo.emplace(t.get(), n);
    return n;
}

// OPA's schemaParser over a compiled schema, each recursive `$ref` re-entered
// at most `unfold` times.
class Deriver {
public:
    explicit Deriver(unsigned unfold) : level_(unfold) {}

    std::string error;
    bool over_budget = false;  // too deep: a smaller unfolding may do

    TypePtr derive(const SubSchema& s) {
        if (depth_ >= kMaxSchemaDepth) {
            over_budget = true;
            error = "schema nests deeper than " + std::to_string(kMaxSchemaDepth) + " levels";
            return nullptr;
        }
        ++depth_;
        TypePtr t = derive_keywords(s);
        --depth_;
        return t;
    }

private:
    unsigned level_;
    std::size_t depth_ = 0;
    std::map<std::pair<const SubSchema*, unsigned>, TypePtr> memo_;
    std::set<std::pair<const SubSchema*, unsigned>> in_progress_;

    TypePtr fail(std::string message) {
        error = std::move(message);
        return nullptr;
    }

    // A `$ref`: each subschema's type is derived once per unfolding level; one
    // met again inside its own derivation is the recursion, one level down.
    TypePtr derive_ref(const SubSchema* target) {
        auto key = std::make_pair(target, level_);
        if (in_progress_.count(key)) {
            if (level_ == 0) return A;
            --level_;
            TypePtr t = derive_ref(target);
            ++level_;
            return t;
        }
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        in_progress_.insert(key);
        TypePtr t = derive(*target);
        in_progress_.erase(key);
        if (t) memo_.emplace(key, t);
        return t;
    }

    // OPA's mergeSchemas, on copies (OPA changes the schemas themselves).
    bool merge(std::vector<SubSchema> list, SubSchema& out) {
        for (auto& s : list) add_implied_type(s);
        out = list[0];
        for (std::size_t i = 1; i < list.size(); ++i) {
            const SubSchema& s = list[i];
            if (type_string(out.types) != type_string(s.types)) {
                error = "unable to merge these schemas: type mismatch: " + type_string(out.types) + " and " +
                        type_string(s.types);
                return false;
            }
            if (has(out.types, "object") && !out.properties.empty() && has(s.types, "object") &&
                !s.properties.empty()) {
                out.properties.insert(out.properties.end(), s.properties.begin(), s.properties.end());
            } else if (has(out.types, "array") && !out.items.empty() && has(s.types, "array") && !s.items.empty()) {
                for (std::size_t j = 0; j < s.items.size(); ++j) {
                    if (j >= out.items.size()) out.items.push_back(s.items[j]);
                    if (type_string(out.items[j]->types) != type_string(s.items[j]->types)) {
                        error = "unable to merge these schemas";
                        return false;
                    }
                }
            }
        }
        return true;
    }

    TypePtr derive_keywords(const SubSchema& s) {
        if (s.ref) return derive_ref(s.ref);

        if (!s.any_of.empty()) {
            TypePtr members;
            if (!s.types.empty()) {
                // The schema's own type joins the union when it is an object with properties.
                SubSchema core = s;
                core.any_of.clear();
                TypePtr c = derive(core);
                if (!c) return nullptr;
                if (is(c, Kind::Object) && !c->props.empty() && !c->dyn) members = c;
            }
            for (const SubSchema* m : s.any_of) {
                TypePtr t = derive(*m);
                if (!t) return nullptr;
                members = union_of(t, members);
            }
            return members;
        }

        if (!s.all_of.empty()) {
            std::vector<SubSchema> list;
            for (const SubSchema* m : s.all_of) {
                // Through references (a cycle of bare references is no schema: untyped).
                std::size_t steps = 0;
                while (m->ref && ++steps <= kMaxSchemaDepth) m = m->ref;
                static const SubSchema kEmpty;
                if (m->ref) m = &kEmpty;
                // A bare anyOf wrapper has no type to merge (OPA skips it).
                if (m->types.empty() && !m->any_of.empty() && m->properties.empty() && m->items.empty()) continue;
                list.push_back(*m);
            }
            if (list.empty()) return A;
            SubSchema merged;
            if (!merge(std::move(list), merged)) return nullptr;
            if (!s.types.empty()) {
                bool objects = has(s.types, "object") && has(merged.types, "object");
                bool arrays = has(s.types, "array") && has(merged.types, "array");
                if (objects || arrays) {
                    SubSchema with_parent;
                    if (!merge({merged, s}, with_parent)) return nullptr;
                    return derive(with_parent);
                }
                if (type_string(s.types) != type_string(merged.types)) return fail("unable to merge these schemas");
            }
            return derive(merged);
        }

        if (!s.types.empty()) {
            if (has(s.types, "boolean")) return B;
            if (has(s.types, "string")) return S;
            if (has(s.types, "integer") || has(s.types, "number")) return N;
            if (has(s.types, "object")) {
                if (s.properties.empty()) return object({}, DynamicProperty{A, A});
                std::vector<StaticProperty> props;
                for (const auto& [name, p] : s.properties) {
                    TypePtr t = derive(*p);
                    if (!t) return nullptr;
                    props.push_back({Key{Key::Kind::String, name}, t});
                }
                return object(std::move(props), std::nullopt);
            }
            if (has(s.types, "array")) {
                if (s.items.empty()) return array({}, A);
                if (s.items_single) {
                    TypePtr t = derive(*s.items[0]);
                    return t ? array({}, t) : nullptr;
                }
                std::vector<TypePtr> items;
                for (const SubSchema* i : s.items) {
                    TypePtr t = derive(*i);
                    if (!t) return nullptr;
                    items.push_back(t);
                }
                return array(std::move(items), nullptr);
            }
        }

        // No type (or only "null"): properties make an object, items an array.
        if (!s.properties.empty() || !s.items.empty()) {
            SubSchema typed = s;
            typed.types.push_back(s.properties.empty() ? "array" : "object");
            return derive(typed);
        }
        return A;
    }
};

}  // namespace

SchemaTypeResult schema_type(const lang::JsonTree& document) {
    SchemaTypeResult out;
    CompileSchemaResult compiled = compile_json_schema(document);
    if (!compiled.schema) {
        out.error = compiled.error;
        return out;
    }
    // The most unfolding whose type stays within the budget.
    for (unsigned unfold = kSchemaUnfold + 1; unfold-- > 0;) {
        Deriver d(unfold);
        TypePtr t = d.derive(*compiled.schema->root);
        if (!t) {
            out.error = "type checking: " + d.error;
            if (d.over_budget) continue;
            return out;
        }
        std::unordered_map<const Type*, std::size_t> memo;
        if (tree_size(t, memo, kMaxSchemaTypeSize + 1) > kMaxSchemaTypeSize) {
            out.error = "type checking: schema too large: its type has more than " +
                        std::to_string(kMaxSchemaTypeSize) + " parts";
            continue;
        }
        out.type = t;
        out.error.clear();
        return out;
    }
    return out;
}

}  // namespace gavel::compiler::types
