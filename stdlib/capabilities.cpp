// The capabilities document, built from the builtin declarations
// (lang/builtins.hpp) that have an implementation in the registry.

#include "stdlib/capabilities.hpp"

#include <map>

namespace gavel::stdlib {

namespace {

using lang::Type;
using runtime::Value;

Value obj(std::initializer_list<std::pair<Value, Value>> entries) { return Value::object(entries); }
Value str(std::string_view s) { return Value::string(s); }

Value list(const std::vector<Type>& types) {
    runtime::ArrayBuilder b(types.size());
    for (const auto& t : types) b.push_back(type_decl(t));
    return b.build();
}

}  // namespace

Value type_decl(const Type& t) {
    switch (t.kind) {
        case Type::Kind::Any:
            if (t.of.empty()) return obj({{str("type"), str("any")}});
            return obj({{str("type"), str("any")}, {str("of"), list(t.of)}});
        case Type::Kind::Null: return obj({{str("type"), str("null")}});
        case Type::Kind::Boolean: return obj({{str("type"), str("boolean")}});
        case Type::Kind::Number: return obj({{str("type"), str("number")}});
        case Type::Kind::String: return obj({{str("type"), str("string")}});
        case Type::Kind::Set: return obj({{str("type"), str("set")}, {str("of"), type_decl(*t.dynamic)}});
        case Type::Kind::Array: {
            runtime::ObjectBuilder b;
            b.insert(str("type"), str("array"));
            if (!t.items.empty()) b.insert(str("static"), list(t.items));
            if (t.dynamic) b.insert(str("dynamic"), type_decl(*t.dynamic));
            return b.build();
        }
        case Type::Kind::Object: {
            runtime::ObjectBuilder b;
            b.insert(str("type"), str("object"));
            if (!t.fields.empty()) {
                runtime::ArrayBuilder fields;
                for (const auto& [k, v] : t.fields)
                    fields.push_back(obj({{str("key"), str(k)}, {str("value"), type_decl(v)}}));
                b.insert(str("static"), fields.build());
            }
            if (t.dynamic)
                b.insert(str("dynamic"),
                         obj({{str("key"), type_decl(*t.dynamic_key)}, {str("value"), type_decl(*t.dynamic)}}));
            return b.build();
        }
    }
    return obj({{str("type"), str("any")}});
}

Value signature_decl(const lang::Signature& s) {
    runtime::ObjectBuilder b;
    b.insert(str("type"), str("function"));
    if (s.variadic) b.insert(str("variadic"), type_decl(*s.variadic));
    else if (!s.args.empty()) b.insert(str("args"), list(s.args));
    if (s.result) b.insert(str("result"), type_decl(*s.result));
    return b.build();
}

Value builtin_capability(const lang::BuiltinDecl& d) {
    runtime::ObjectBuilder o;
    o.insert(str("name"), str(d.name));
    o.insert(str("decl"), signature_decl(d.signature));
    if (!d.infix.empty()) o.insert(str("infix"), str(d.infix));
    if (d.deprecated) o.insert(str("deprecated"), Value::boolean(true));
    if (d.nondeterministic) o.insert(str("nondeterministic"), Value::boolean(true));
    if (d.relation) o.insert(str("relation"), Value::boolean(true));
    return o.build();
}

Value capabilities_document(const Registry& registry, std::span<const lang::BuiltinDecl* const> extra) {
    std::map<std::string, const lang::BuiltinDecl*> builtins;
    for (const auto& d : lang::builtin_decls())
        if (!d.hidden && (d.native || registry.find(d.name))) builtins[d.name] = &d;
    for (const lang::BuiltinDecl* d : extra) builtins[d->name] = d;
    runtime::ArrayBuilder list(builtins.size());
    for (const auto& [name, d] : builtins) list.push_back(builtin_capability(*d));
    return Value::object({
        {str("builtins"), list.build()},
        {str("future_keywords"), Value::array({str("contains"), str("every"), str("if"), str("in")})},
        {str("features"), Value::array({str("rego_v1"), str("template_strings")})},
    });
}

}  // namespace gavel::stdlib
