// Schema assembly and validation; see schema.hpp.

#include "stdlib/graphql/schema.hpp"

#include <algorithm>

#include "stdlib/graphql/parser.hpp"

namespace gavel::stdlib::graphql {

namespace {

// The definitions every GraphQL schema has implicitly (spec sections 3.5,
// 3.13 and 4.5), written out in SDL.
constexpr std::string_view kPrelude = R"graphql(
scalar Int
scalar Float
scalar String
scalar Boolean
scalar ID

directive @include(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @deprecated(reason: String = "No longer supported") on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE
directive @specifiedBy(url: String!) on SCALAR

type __Schema {
  description: String
  types: [__Type!]!
  queryType: __Type!
  mutationType: __Type
  subscriptionType: __Type
  directives: [__Directive!]!
}

type __Type {
  kind: __TypeKind!
  name: String
  description: String
  fields(includeDeprecated: Boolean = false): [__Field!]
  interfaces: [__Type!]
  possibleTypes: [__Type!]
  enumValues(includeDeprecated: Boolean = false): [__EnumValue!]
  inputFields: [__InputValue!]
  ofType: __Type
  specifiedByURL: String
}

type __Field {
  name: String!
  description: String
  args: [__InputValue!]!
  type: __Type!
  isDeprecated: Boolean!
  deprecationReason: String
}

type __InputValue {
  name: String!
  description: String
  type: __Type!
  defaultValue: String
}

type __EnumValue {
  name: String!
  description: String
  isDeprecated: Boolean!
  deprecationReason: String
}

enum __TypeKind {
  SCALAR
  OBJECT
  INTERFACE
  UNION
  ENUM
  INPUT_OBJECT
  LIST
  NON_NULL
}

type __Directive {
  name: String!
  description: String
  locations: [__DirectiveLocation!]!
  args: [__InputValue!]!
  isRepeatable: Boolean!
}

enum __DirectiveLocation {
  QUERY
  MUTATION
  SUBSCRIPTION
  FIELD
  FRAGMENT_DEFINITION
  FRAGMENT_SPREAD
  INLINE_FRAGMENT
  VARIABLE_DEFINITION
  SCHEMA
  SCALAR
  OBJECT
  FIELD_DEFINITION
  ARGUMENT_DEFINITION
  INTERFACE
  UNION
  ENUM
  ENUM_VALUE
  INPUT_OBJECT
  INPUT_FIELD_DEFINITION
}
)graphql";

const SchemaDocument& prelude() {
    static const SchemaDocument doc = std::get<SchemaDocument>(parse_schema(kPrelude, true));
    return doc;
}

std::string quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool kind_in(const std::string& kind, std::initializer_list<std::string_view> kinds) {
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::optional<Error> check_name(const Position& pos, const std::string& name) {
    if (name.rfind("__", 0) == 0)
        return Error{"Name \"" + name + "\" must not begin with \"__\", which is reserved by GraphQL introspection.",
                     pos};
    return std::nullopt;
}

class Checker {
public:
    explicit Checker(const Schema& s) : s_(s) {}

    std::optional<Error> directives(const std::vector<Directive>& dirs, std::string_view location,
                                    const DirectiveDefinition* current) {
        for (const auto& d : dirs) {
            if (auto e = check_name(d.pos, d.name)) return e;
            if (current && d.name == current->name)
                return Error{"Directive " + d.name + " cannot refer to itself.", d.pos};
            const DirectiveDefinition* def = s_.directive(d.name);
            if (!def) return Error{"Undefined directive " + d.name + ".", d.pos};
            if (std::find(def->locations.begin(), def->locations.end(), location) == def->locations.end())
                return Error{"Directive " + d.name + " is not applicable on " + std::string(location) + ".", d.pos};
        }
        return std::nullopt;
    }

    std::optional<Error> type_ref(const std::shared_ptr<TypeRef>& t, const Position& fallback) {
        if (!t) return Error{"Undefined type .", fallback};
        if (!s_.type(t->innermost_name())) return Error{"Undefined type " + t->innermost_name() + ".", t->pos};
        return std::nullopt;
    }

    std::optional<Error> arguments(const std::vector<ArgumentDefinition>& args, const DirectiveDefinition* current) {
        for (const auto& a : args) {
            if (auto e = check_name(a.pos, a.name)) return e;
            if (auto e = type_ref(a.type, a.pos)) return e;
            const Definition* def = s_.type(a.type->innermost_name());
            if (!is_input_kind(def->kind))
                return Error{"cannot use " + a.type->to_string() + " as argument " + a.name + " because " + def->kind +
                                 " is not a valid input type",
                             a.pos};
            if (auto e = directives(a.directives, "ARGUMENT_DEFINITION", current)) return e;
        }
        return std::nullopt;
    }

    // Spec 3.6.1 "IsValidImplementation": fields present with covariant
    // types and compatible arguments, and every interface the interface
    // implements listed too.
    std::optional<Error> implements(const Definition& def, const std::string& name) {
        const Definition* intf = s_.type(name);
        if (!intf) return Error{"Undefined type " + quote(name) + ".", def.pos};
        if (intf->kind != "INTERFACE")
            return Error{quote(name) + " is a non interface type " + intf->kind + ".", def.pos};
        for (const auto& required : intf->fields) {
            auto found = std::find_if(def.fields.begin(), def.fields.end(),
                                      [&](const FieldDefinition& f) { return f.name == required.name; });
            if (found == def.fields.end())
                return Error{"For " + def.name + " to implement " + intf->name + " it must have a field called " +
                                 required.name + ".",
                             def.pos};
            if (!covariant(required.type.get(), found->type.get()))
                return Error{"For " + def.name + " to implement " + intf->name + " the field " + required.name +
                                 " must have type " + (required.type ? required.type->to_string() : "") + ".",
                             found->pos};
            for (const auto& ra : required.arguments) {
                auto fa = std::find_if(found->arguments.begin(), found->arguments.end(),
                                       [&](const ArgumentDefinition& a) { return a.name == ra.name; });
                if (fa == found->arguments.end())
                    return Error{"For " + def.name + " to implement " + intf->name + " the field " + required.name +
                                     " must have the same arguments but it is missing " + ra.name + ".",
                                 found->pos};
                if (!ra.type || !fa->type || !argument_compatible(*ra.type, *fa->type))
                    return Error{"For " + def.name + " to implement " + intf->name + " the field " + required.name +
                                     " must have the same arguments but " + ra.name + " has the wrong type.",
                                 fa->pos};
            }
            for (const auto& fa : found->arguments) {
                bool in_interface = std::any_of(required.arguments.begin(), required.arguments.end(),
                                                [&](const ArgumentDefinition& a) { return a.name == fa.name; });
                if (!in_interface && fa.type && fa.type->non_null && !fa.default_value)
                    return Error{"For " + def.name + " to implement " + intf->name + " any additional arguments on " +
                                     found->name + " must be optional or have a default value but " + fa.name +
                                     " is required.",
                                 fa.pos};
            }
        }
        for (const auto& transitive : intf->interfaces) {
            if (std::find(def.interfaces.begin(), def.interfaces.end(), transitive) != def.interfaces.end()) continue;
            if (transitive == def.name)
                return Error{
                    "Type " + def.name + " cannot implement " + name + " because it would create a circular reference.",
                    def.pos};
            return Error{
                "Type " + def.name + " must implement " + transitive + " because it is implemented by " + name + ".",
                def.pos};
        }
        return std::nullopt;
    }

    // gqlparser's Type.IsCompatible, asymmetric as it is.
    static bool argument_compatible(const TypeRef& t, const TypeRef& other) {
        if (t.named != other.named) return false;
        if (t.elem && !other.elem) return false;
        if (t.elem && !argument_compatible(*t.elem, *other.elem)) return false;
        if (other.non_null) return t.non_null;
        return true;
    }

    bool covariant(const TypeRef* required, const TypeRef* actual) {
        if (!required || !actual) return false;
        if (required->non_null && !actual->non_null) return false;
        if (!required->named.empty()) {
            if (required->named == actual->named) return true;
            return s_.is_possible(required->named, actual->named);
        }
        if (!actual->elem) return false;
        return covariant(required->elem.get(), actual->elem.get());
    }

    std::optional<Error> definition(const Definition& def) {
        for (const auto& f : def.fields) {
            if (auto e = check_name(f.pos, f.name)) return e;
            if (auto e = type_ref(f.type, f.pos)) return e;
            if (auto e = arguments(f.arguments, nullptr)) return e;
            if (auto e = directives(
                    f.directives, def.kind == "INPUT_OBJECT" ? "INPUT_FIELD_DEFINITION" : "FIELD_DEFINITION", nullptr))
                return e;
        }
        for (const auto& t : def.types) {
            const Definition* member = s_.type(t);
            if (!member) return Error{"Undefined type " + quote(t) + ".", def.pos};
            if (member->kind != "OBJECT") return Error{def.kind + " type " + quote(t) + " must be OBJECT.", def.pos};
        }
        for (const auto& i : def.interfaces)
            if (auto e = implements(def, i)) return e;
        if (def.kind == "OBJECT" || def.kind == "INTERFACE") {
            if (def.fields.empty())
                return Error{def.kind + " " + def.name + ": must define one or more fields.", def.pos};
            for (const auto& f : def.fields)
                if (const Definition* t = s_.type(f.type->innermost_name()); t && t->kind == "INPUT_OBJECT")
                    return Error{
                        def.kind + " " + def.name + ": field must be one of SCALAR, OBJECT, INTERFACE, UNION, ENUM.",
                        f.pos};
        } else if (def.kind == "ENUM") {
            if (def.enum_values.empty())
                return Error{def.kind + " " + def.name + ": must define one or more unique enum values.", def.pos};
            for (const auto& v : def.enum_values)
                if (v.name == "true" || v.name == "false" || v.name == "null")
                    return Error{def.kind + " " + def.name + ": non-enum value " + v.name + ".", def.pos};
        } else if (def.kind == "INPUT_OBJECT") {
            if (def.fields.empty())
                return Error{def.kind + " " + def.name + ": must define one or more input fields.", def.pos};
            for (const auto& f : def.fields)
                if (const Definition* t = s_.type(f.type->innermost_name()); t && !is_input_kind(t->kind))
                    return Error{t->kind + " " + f.name + ": field must be one of SCALAR, ENUM, INPUT_OBJECT.", f.pos};
        }
        for (std::size_t i = 0; i < def.fields.size(); ++i)
            for (std::size_t j = i + 1; j < def.fields.size(); ++j)
                if (def.fields[i].name == def.fields[j].name)
                    return Error{"Field " + def.name + "." + def.fields[j].name + " can only be defined once.",
                                 def.fields[j].pos};
        if (!def.built_in)
            if (auto e = check_name(def.pos, def.name)) return e;
        return directives(def.directives, def.kind, nullptr);
    }

private:
    const Schema& s_;
};

void add_possible(Schema& s, const std::string& abstract, const std::string& object) {
    auto& list = s.possible_types[abstract];
    if (std::find(list.begin(), list.end(), object) == list.end()) list.push_back(object);
}

}  // namespace

bool is_input_kind(const std::string& kind) { return kind_in(kind, {"SCALAR", "ENUM", "INPUT_OBJECT"}); }
bool is_composite_kind(const std::string& kind) { return kind_in(kind, {"OBJECT", "INTERFACE", "UNION"}); }

bool Schema::is_possible(std::string_view abstract, std::string_view object) const {
    auto it = possible_types.find(abstract);
    if (it == possible_types.end()) return false;
    return std::find(it->second.begin(), it->second.end(), object) != it->second.end();
}

std::variant<Schema, Error> build_schema(const SchemaDocument& user) {
    const SchemaDocument& builtins = prelude();
    Schema s;
    std::vector<std::string> order;  // definition order, for deterministic checks

    for (const SchemaDocument* doc : {&builtins, &user})
        for (const auto& def : doc->definitions) {
            if (s.types.count(def.name)) return Error{"Cannot redeclare type " + def.name + ".", def.pos};
            s.types.emplace(def.name, def);
            order.push_back(def.name);
        }
    for (const SchemaDocument* doc : {&builtins, &user})
        for (const auto& ext : doc->extensions) {
            auto it = s.types.find(ext.name);
            if (it == s.types.end()) {
                // gqlparser lets an extension stand in for a missing base type
                // (federation schemas extend types defined elsewhere).
                Definition base;
                base.kind = ext.kind;
                base.name = ext.name;
                base.pos = ext.pos;
                it = s.types.emplace(ext.name, std::move(base)).first;
                order.push_back(ext.name);
            }
            Definition& def = it->second;
            if (def.kind != ext.kind)
                return Error{"Cannot extend type " + ext.name + " because the base type is a " + def.kind + ", not " +
                                 ext.kind + ".",
                             ext.pos};
            def.directives.insert(def.directives.end(), ext.directives.begin(), ext.directives.end());
            def.interfaces.insert(def.interfaces.end(), ext.interfaces.begin(), ext.interfaces.end());
            def.fields.insert(def.fields.end(), ext.fields.begin(), ext.fields.end());
            def.types.insert(def.types.end(), ext.types.begin(), ext.types.end());
            def.enum_values.insert(def.enum_values.end(), ext.enum_values.begin(), ext.enum_values.end());
        }

    for (const auto& name : order) {
        const Definition& def = s.types.at(name);
        if (def.kind == "UNION") {
            for (const auto& t : def.types) add_possible(s, def.name, t);
        } else if (def.kind == "OBJECT" || def.kind == "INPUT_OBJECT") {
            for (const auto& i : def.interfaces) add_possible(s, i, def.name);
            add_possible(s, def.name, def.name);
        } else if (def.kind == "INTERFACE") {
            for (const auto& i : def.interfaces) add_possible(s, i, def.name);
        }
    }

    for (const SchemaDocument* doc : {&builtins, &user})
        for (const auto& d : doc->directives) {
            if (s.directives.count(d.name)) {
                // SDL may restate the spec's directives; the first one stays.
                if (d.name == "include" || d.name == "skip" || d.name == "deprecated" || d.name == "specifiedBy")
                    continue;
                return Error{"Cannot redeclare directive " + d.name + ".", d.pos};
            }
            s.directives.emplace(d.name, d);
        }

    if (user.schema.size() > 1)
        return Error{"Cannot have multiple schema entry points, consider schema extensions instead.",
                     user.schema[1].pos};
    auto set_roots = [&](const SchemaDefinition& sd) -> std::optional<Error> {
        for (const auto& op : sd.operation_types) {
            if (!s.type(op.type))
                return Error{"Schema root " + op.operation + " refers to a type " + op.type + " that does not exist.",
                             op.pos};
            if (op.operation == "query") s.query_type = op.type;
            else if (op.operation == "mutation") s.mutation_type = op.type;
            else if (op.operation == "subscription") s.subscription_type = op.type;
        }
        return std::nullopt;
    };
    for (const auto& sd : user.schema)
        if (auto e = set_roots(sd)) return *e;
    for (const auto& sd : user.schema_extensions)
        if (auto e = set_roots(sd)) return *e;

    // Checked in name order (the maps are sorted), so the first problem
    // reported is the same as gqlparser's.
    Checker check(s);
    for (const auto& [name, def] : s.types)
        if (auto e = check.definition(def)) return *e;
    for (const auto& [name, d] : s.directives) {
        if (auto e = check_name(d.pos, d.name)) return *e;
        if (auto e = check.arguments(d.arguments, &d)) return *e;
    }

    // Root types are inferred by name only without a schema definition.
    if (user.schema.empty()) {
        if (s.query_type.empty() && s.type("Query")) s.query_type = "Query";
        if (s.mutation_type.empty() && s.type("Mutation")) s.mutation_type = "Mutation";
        if (s.subscription_type.empty() && s.type("Subscription")) s.subscription_type = "Subscription";
    }

    // Introspection entry points live on the query root.
    if (!s.query_type.empty()) {
        Definition& q = s.types.at(s.query_type);
        FieldDefinition schema_field;
        schema_field.name = "__schema";
        schema_field.type = std::make_shared<TypeRef>(TypeRef{"__Schema", nullptr, true, {}});
        FieldDefinition type_field;
        type_field.name = "__type";
        type_field.type = std::make_shared<TypeRef>(TypeRef{"__Type", nullptr, false, {}});
        ArgumentDefinition name_arg;
        name_arg.name = "name";
        name_arg.type = std::make_shared<TypeRef>(TypeRef{"String", nullptr, true, {}});
        type_field.arguments.push_back(std::move(name_arg));
        q.fields.push_back(std::move(schema_field));
        q.fields.push_back(std::move(type_field));
    }
    return s;
}

}  // namespace gavel::stdlib::graphql
