#include "compiler/types/builtin_types.hpp"

#include "compiler/rule_tree.hpp"

namespace gavel::compiler::types {

namespace {

// A builtin's name as tree keys: `io.jwt.decode` is the var io, then "jwt", "decode".
std::vector<std::string> name_keys(const std::string& name) {
    std::vector<std::string> keys;
    std::size_t start = 0;
    while (true) {
        std::size_t dot = name.find('.', start);
        std::string part = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        keys.push_back(keys.empty() ? "4" + part : string_key(part));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return keys;
}

// The table's builtins' types, made once: they never change.
const std::vector<std::pair<std::vector<std::string>, TypePtr>>& table_types() {
    static const auto types = [] {
        std::vector<std::pair<std::vector<std::string>, TypePtr>> out;
        for (const auto& d : lang::builtin_decls()) out.emplace_back(name_keys(d.name), function_type(d));
        return out;
    }();
    return types;
}

}  // namespace

TypePtr type_from(const lang::Type& t) {
    using K = lang::Type::Kind;
    switch (t.kind) {
        case K::Null: return Nl;
        case K::Boolean: return B;
        case K::Number: return N;
        case K::String: return S;
        case K::Any: {
            if (t.of.empty()) return A;
            std::vector<TypePtr> members;
            for (const auto& m : t.of) members.push_back(type_from(m));
            return any_of(std::move(members));
        }
        case K::Array: {
            std::vector<TypePtr> items;
            for (const auto& i : t.items) items.push_back(type_from(i));
            return array(std::move(items), t.dynamic ? type_from(*t.dynamic) : nullptr);
        }
        case K::Set: return set(t.dynamic ? type_from(*t.dynamic) : A);
        case K::Object: {
            std::vector<StaticProperty> props;
            for (const auto& f : t.fields) props.push_back({Key{Key::Kind::String, f.first}, type_from(f.second)});
            std::optional<DynamicProperty> dyn;
            if (t.dynamic) dyn = DynamicProperty{t.dynamic_key ? type_from(*t.dynamic_key) : A, type_from(*t.dynamic)};
            return object(std::move(props), std::move(dyn));
        }
    }
    return A;
}

TypePtr function_type(const lang::BuiltinDecl& decl) {
    const auto& s = decl.signature;
    std::vector<TypePtr> args;
    for (const auto& a : s.args) args.push_back(type_from(a));
    return named_function(std::move(args), s.arg_names, s.result ? type_from(*s.result) : nullptr, s.result_name,
                          s.variadic ? type_from(*s.variadic) : nullptr);
}

EnvPtr builtin_env(const std::map<std::string, std::shared_ptr<const lang::BuiltinDecl>>& custom) {
    auto env = std::make_shared<TypeEnv>();
    for (const auto& [keys, type] : table_types()) env->tree.put(keys, type);
    for (const auto& [name, decl] : custom) env->tree.put(name_keys(name), function_type(*decl));
    return env;
}

}  // namespace gavel::compiler::types
