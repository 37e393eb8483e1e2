#include "compiler/types/schema_override.hpp"

namespace gavel::compiler::types {

using lang::Term;
using lang::TermKind;

namespace {

// OPA's getKeys: each part as an object key (a scalar).
std::optional<std::string> keys_of(const std::vector<lang::TermPtr>& parts, std::size_t from, std::vector<Key>& out) {
    for (std::size_t i = from; i < parts.size(); ++i) {
        const Term& p = *parts[i];
        if (auto k = key_of(p)) {
            out.push_back(*k);
            continue;
        }
        // OPA's JSON() of the part fails the same way for variables; gavel's static
        // keys are scalars, so a composite part (which OPA takes) fails here too.
        std::string what = p.kind == TermKind::Var
                               ? "var requires evaluation"
                               : std::string(lang::value_name(p.kind)) + " cannot be an object key here";
        return "error getting key from value: " + what;
    }
    return std::nullopt;
}

// OPA's getObjectTypeRec: {k1: {k2: ... o}}, each level with the dynamic part `dyn`.
TypePtr nested(const std::vector<Key>& keys, std::size_t i, const TypePtr& o,
               const std::optional<DynamicProperty>& dyn) {
    TypePtr inner = i + 1 == keys.size() ? o : nested(keys, i + 1, o, dyn);
    return object({StaticProperty{keys[i], inner}}, dyn);
}

// OPA's override: `t` with `o` at `parts[from..]`.
std::optional<std::string> override_at(const std::vector<lang::TermPtr>& parts, std::size_t from, const TypePtr& t,
                                       const TypePtr& o, TypePtr& out) {
    std::vector<Key> keys;
    if (!is(t, Kind::Object)) {
        if (auto err = keys_of(parts, from, keys)) return err;
        out = nested(keys, 0, o, DynamicProperty{A, A});
        return std::nullopt;
    }
    std::optional<Key> first = key_of(*parts[from]);
    std::vector<StaticProperty> props;
    bool found = false;
    for (const auto& p : t->props) {
        TypePtr value = p.value;
        if (first && compare(*first, p.key) == 0) {
            found = true;
            if (from + 1 == parts.size()) {
                value = o;
            } else if (auto err = override_at(parts, from + 1, value, o, value)) {
                return err;
            }
        }
        props.push_back({p.key, value});
    }
    if (!found) {
        if (auto err = keys_of(parts, from, keys)) return err;
        props.push_back({keys[0], nested(keys, 0, o, t->dyn)->props[0].value});
    }
    out = object(std::move(props), t->dyn);
    return std::nullopt;
}

}  // namespace

std::optional<std::string> apply_document_schema(TypeEnv& env, const DocumentSchema& schema, Memo& memo,
                                                 std::vector<std::string>& put) {
    const auto& parts = schema.ref->elems;
    // OPA's getPrefix: the shortest prefix that has a type (the whole ref only when it has one part).
    std::size_t prefix = 0;
    TypePtr t;
    for (std::size_t n = 1; n <= parts.size() && !t; ++n) {
        if (n == parts.size() && n > 1) break;
        std::vector<lang::TermPtr> head(parts.begin(), parts.begin() + static_cast<long>(n));
        t = type_of_ref(env, *lang::make_ref(std::move(head), schema.ref->loc), memo);
        if (t) prefix = n;
    }
    TypePtr value = schema.type;
    if (t && prefix < parts.size()) {
        if (auto err = override_at(parts, prefix, t, schema.type, value)) return err;
    } else {
        prefix = parts.size();
    }
    put.clear();
    for (std::size_t i = 0; i < prefix; ++i) put.push_back(node_key(*parts[i]));
    env.tree.put(put, value);
    return std::nullopt;
}

}  // namespace gavel::compiler::types
