// GraphQL AST <-> Rego values; see ast_values.hpp.

#include "stdlib/graphql/ast_values.hpp"

#include <functional>

#include "stdlib/graphql/parser.hpp"

namespace gavel::stdlib::graphql {

using runtime::ArrayBuilder;
using runtime::ObjectBuilder;
using RV = runtime::Value;

namespace {

// ---- AST -> value -------------------------------------------------------------
// Members are only added when the pruned Go JSON would keep them: strings and
// booleans always, nested objects/arrays only when present and non-empty.

class Obj {
public:
    Obj& str(std::string_view key, std::string_view s) { return put(key, RV::string(s)); }
    Obj& boolean(std::string_view key, bool b) { return put(key, RV::boolean(b)); }
    Obj& num(std::string_view key, int n) { return put(key, RV::integer(n)); }
    Obj& child(std::string_view key, RV v) {  // drops empty arrays/objects
        if ((v.is_array() || v.is_object()) && v.size() == 0) return *this;
        return put(key, std::move(v));
    }
    RV build() { return b_.build(); }

private:
    Obj& put(std::string_view key, RV v) {
        b_.insert(RV::string(key), std::move(v));
        return *this;
    }
    ObjectBuilder b_;
};

template <typename T, typename F>
RV list(const std::vector<T>& items, F&& convert) {
    ArrayBuilder a(items.size());
    for (const auto& item : items) {
        RV v = convert(item);
        if ((v.is_array() || v.is_object()) && v.size() == 0) continue;
        a.push_back(std::move(v));
    }
    return a.build();
}

RV strings(const std::vector<std::string>& items) {
    return list(items, [](const std::string& s) { return RV::string(s); });
}

RV value_to(const std::shared_ptr<Value>& v) {
    if (!v) return RV::empty_object();
    Obj o;
    o.str("Raw", v->raw).num("Kind", static_cast<int>(v->kind)).boolean("ExpectedTypeHasDefault", false);
    o.child("Children", list(v->children, [](const ChildValue& c) {
                return Obj().str("Name", c.name).child("Value", value_to(c.value)).build();
            }));
    return o.build();
}

RV type_to(const std::shared_ptr<TypeRef>& t) {
    if (!t) return RV::empty_object();
    return Obj().str("NamedType", t->named).boolean("NonNull", t->non_null).child("Elem", type_to(t->elem)).build();
}

RV arguments_to(const std::vector<Argument>& args) {
    return list(args,
                [](const Argument& a) { return Obj().str("Name", a.name).child("Value", value_to(a.value)).build(); });
}

RV directives_to(const std::vector<Directive>& dirs) {
    return list(dirs, [](const Directive& d) {
        return Obj().str("Name", d.name).str("Location", "").child("Arguments", arguments_to(d.arguments)).build();
    });
}

RV selections_to(const std::vector<Selection>& sels) {
    return list(sels, [](const Selection& s) {
        Obj o;
        switch (s.kind) {
            case SelectionKind::Field:
                o.str("Alias", s.alias).str("Name", s.name).child("Arguments", arguments_to(s.arguments));
                break;
            case SelectionKind::FragmentSpread: o.str("Name", s.name); break;
            case SelectionKind::InlineFragment: o.str("TypeCondition", s.type_condition); break;
        }
        o.child("Directives", directives_to(s.directives)).child("SelectionSet", selections_to(s.selection_set));
        return o.build();
    });
}

RV variables_to(const std::vector<VariableDefinition>& vars) {
    return list(vars, [](const VariableDefinition& v) {
        return Obj()
            .str("Variable", v.variable)
            .child("Type", type_to(v.type))
            .child("DefaultValue", value_to(v.default_value))
            .child("Directives", directives_to(v.directives))
            .boolean("Used", false)
            .build();
    });
}

RV argument_definitions_to(const std::vector<ArgumentDefinition>& args) {
    return list(args, [](const ArgumentDefinition& a) {
        return Obj()
            .str("Description", a.description)
            .str("Name", a.name)
            .child("DefaultValue", value_to(a.default_value))
            .child("Type", type_to(a.type))
            .child("Directives", directives_to(a.directives))
            .build();
    });
}

RV definitions_to(const std::vector<Definition>& defs) {
    return list(defs, [](const Definition& d) {
        Obj o;
        o.str("Kind", d.kind).str("Description", d.description).str("Name", d.name).boolean("BuiltIn", d.built_in);
        o.child("Directives", directives_to(d.directives)).child("Interfaces", strings(d.interfaces));
        o.child("Fields", list(d.fields, [](const FieldDefinition& f) {
                    return Obj()
                        .str("Description", f.description)
                        .str("Name", f.name)
                        .child("Arguments", argument_definitions_to(f.arguments))
                        .child("DefaultValue", value_to(f.default_value))
                        .child("Type", type_to(f.type))
                        .child("Directives", directives_to(f.directives))
                        .build();
                }));
        o.child("Types", strings(d.types));
        o.child("EnumValues", list(d.enum_values, [](const EnumValueDefinition& e) {
                    return Obj()
                        .str("Description", e.description)
                        .str("Name", e.name)
                        .child("Directives", directives_to(e.directives))
                        .build();
                }));
        return o.build();
    });
}

RV schema_definitions_to(const std::vector<SchemaDefinition>& defs) {
    return list(defs, [](const SchemaDefinition& s) {
        return Obj()
            .str("Description", s.description)
            .child("Directives", directives_to(s.directives))
            .child("OperationTypes", list(s.operation_types,
                                          [](const OperationTypeDefinition& op) {
                                              return Obj().str("Operation", op.operation).str("Type", op.type).build();
                                          }))
            .build();
    });
}

// ---- value -> AST -------------------------------------------------------------

struct DecodeError {
    std::string message;
};

[[noreturn]] void mismatch(std::string_view want, const RV& got, std::string_view key) {
    throw DecodeError{"json: cannot unmarshal " + std::string(got.is_object() ? "object" : got.type_name()) +
                      " into Go struct field " + std::string(key) + " of type " + std::string(want)};
}

// A member of `o`, or nullptr when absent or null (both leave the Go zero value).
const RV* member(const RV& o, std::string_view key) {
    const RV* v = o.find(key);
    return v && !v->is_null() ? v : nullptr;
}

void get(const RV& o, std::string_view key, std::string& out) {
    if (const RV* v = member(o, key)) {
        if (!v->is_string()) mismatch("string", *v, key);
        out = std::string(v->as_string());
    }
}

void get(const RV& o, std::string_view key, bool& out) {
    if (const RV* v = member(o, key)) {
        if (v->kind() != runtime::Kind::Boolean) mismatch("bool", *v, key);
        out = v->as_bool();
    }
}

void get(const RV& o, std::string_view key, std::vector<std::string>& out) {
    if (const RV* v = member(o, key)) {
        if (!v->is_array()) mismatch("[]string", *v, key);
        for (const RV& e : v->array_elements()) {
            if (!e.is_string()) mismatch("string", e, key);
            out.emplace_back(e.as_string());
        }
    }
}

const RV& expect_object(const RV& v, std::string_view key) {
    if (!v.is_object()) mismatch("object", v, key);
    return v;
}

// Calls f on each non-null element of the array member `key`.
void each(const RV& o, std::string_view key, const std::function<void(const RV&)>& f) {
    if (const RV* v = member(o, key)) {
        if (!v->is_array()) mismatch("array", *v, key);
        for (const RV& e : v->array_elements())
            if (!e.is_null()) f(expect_object(e, key));
    }
}

struct Decoder {
    int depth = 0;

    struct Nest {
        Decoder& d;
        explicit Nest(Decoder& dec) : d(dec) {
            if (++d.depth > kMaxDepth)
                throw DecodeError{"AST nesting exceeds the maximum depth of " + std::to_string(kMaxDepth)};
        }
        ~Nest() { --d.depth; }
    };

    std::shared_ptr<Value> value(const RV& o, std::string_view key) {
        const RV* v = member(o, key);
        if (!v) return nullptr;
        Nest nest(*this);
        const RV& obj = expect_object(*v, key);
        auto out = std::make_shared<Value>();
        get(obj, "Raw", out->raw);
        if (const RV* k = member(obj, "Kind")) {
            std::int64_t n = 0;
            if (!k->as_int64(n)) mismatch("ast.ValueKind", *k, "Kind");
            out->kind = static_cast<ValueKind>(n);
        } else {
            out->kind = ValueKind::Variable;  // Go zero value
        }
        each(obj, "Children", [&](const RV& c) {
            ChildValue child;
            get(c, "Name", child.name);
            child.value = value(c, "Value");
            out->children.push_back(std::move(child));
        });
        return out;
    }

    std::shared_ptr<TypeRef> type(const RV& o, std::string_view key) {
        const RV* v = member(o, key);
        if (!v) return nullptr;
        Nest nest(*this);
        const RV& obj = expect_object(*v, key);
        auto t = std::make_shared<TypeRef>();
        get(obj, "NamedType", t->named);
        get(obj, "NonNull", t->non_null);
        t->elem = type(obj, "Elem");
        return t;
    }

    std::vector<Argument> arguments(const RV& o) {
        std::vector<Argument> out;
        each(o, "Arguments", [&](const RV& a) {
            Argument arg;
            get(a, "Name", arg.name);
            arg.value = value(a, "Value");
            out.push_back(std::move(arg));
        });
        return out;
    }

    std::vector<Directive> directives(const RV& o) {
        std::vector<Directive> out;
        each(o, "Directives", [&](const RV& d) {
            Directive dir;
            get(d, "Name", dir.name);
            dir.arguments = arguments(d);
            out.push_back(std::move(dir));
        });
        return out;
    }

    // Go's interface-typed selections are told apart by their members: only
    // inline fragments have a type condition, only fields an alias or arguments.
    std::vector<Selection> selections(const RV& o) {
        std::vector<Selection> out;
        each(o, "SelectionSet", [&](const RV& s) {
            Nest nest(*this);
            Selection sel;
            if (s.find("TypeCondition") || !s.find("Name")) {
                sel.kind = SelectionKind::InlineFragment;
                get(s, "TypeCondition", sel.type_condition);
            } else if (s.find("Alias") || s.find("Arguments") || s.find("SelectionSet")) {
                sel.kind = SelectionKind::Field;
                get(s, "Alias", sel.alias);
                get(s, "Name", sel.name);
                sel.arguments = arguments(s);
            } else {
                sel.kind = SelectionKind::FragmentSpread;
                get(s, "Name", sel.name);
            }
            sel.directives = directives(s);
            sel.selection_set = selections(s);
            out.push_back(std::move(sel));
        });
        return out;
    }

    std::vector<VariableDefinition> variables(const RV& o, std::string_view key) {
        std::vector<VariableDefinition> out;
        each(o, key, [&](const RV& v) {
            VariableDefinition def;
            get(v, "Variable", def.variable);
            def.type = type(v, "Type");
            def.default_value = value(v, "DefaultValue");
            def.directives = directives(v);
            out.push_back(std::move(def));
        });
        return out;
    }

    std::vector<ArgumentDefinition> argument_definitions(const RV& o) {
        std::vector<ArgumentDefinition> out;
        each(o, "Arguments", [&](const RV& a) {
            ArgumentDefinition def;
            get(a, "Description", def.description);
            get(a, "Name", def.name);
            def.default_value = value(a, "DefaultValue");
            def.type = type(a, "Type");
            def.directives = directives(a);
            out.push_back(std::move(def));
        });
        return out;
    }

    std::vector<Definition> definitions(const RV& o, std::string_view key) {
        std::vector<Definition> out;
        each(o, key, [&](const RV& d) {
            Definition def;
            get(d, "Kind", def.kind);
            get(d, "Description", def.description);
            get(d, "Name", def.name);
            get(d, "BuiltIn", def.built_in);
            def.directives = directives(d);
            get(d, "Interfaces", def.interfaces);
            each(d, "Fields", [&](const RV& f) {
                FieldDefinition field;
                get(f, "Description", field.description);
                get(f, "Name", field.name);
                field.arguments = argument_definitions(f);
                field.default_value = value(f, "DefaultValue");
                field.type = type(f, "Type");
                field.directives = directives(f);
                def.fields.push_back(std::move(field));
            });
            get(d, "Types", def.types);
            each(d, "EnumValues", [&](const RV& e) {
                EnumValueDefinition ev;
                get(e, "Description", ev.description);
                get(e, "Name", ev.name);
                ev.directives = directives(e);
                def.enum_values.push_back(std::move(ev));
            });
            out.push_back(std::move(def));
        });
        return out;
    }

    std::vector<SchemaDefinition> schema_definitions(const RV& o, std::string_view key) {
        std::vector<SchemaDefinition> out;
        each(o, key, [&](const RV& s) {
            SchemaDefinition def;
            get(s, "Description", def.description);
            def.directives = directives(s);
            each(s, "OperationTypes", [&](const RV& op) {
                OperationTypeDefinition t;
                get(op, "Operation", t.operation);
                get(op, "Type", t.type);
                def.operation_types.push_back(std::move(t));
            });
            out.push_back(std::move(def));
        });
        return out;
    }
};

}  // namespace

RV query_to_value(const QueryDocument& doc) {
    Obj o;
    o.child("Operations", list(doc.operations, [](const Operation& op) {
                return Obj()
                    .str("Operation", op.operation)
                    .str("Name", op.name)
                    .child("VariableDefinitions", variables_to(op.variables))
                    .child("Directives", directives_to(op.directives))
                    .child("SelectionSet", selections_to(op.selection_set))
                    .build();
            }));
    o.child("Fragments", list(doc.fragments, [](const Fragment& f) {
                return Obj()
                    .str("Name", f.name)
                    .child("VariableDefinition", variables_to(f.variables))
                    .str("TypeCondition", f.type_condition)
                    .child("Directives", directives_to(f.directives))
                    .child("SelectionSet", selections_to(f.selection_set))
                    .build();
            }));
    return o.build();
}

RV schema_to_value(const SchemaDocument& doc) {
    Obj o;
    o.child("Schema", schema_definitions_to(doc.schema));
    o.child("SchemaExtension", schema_definitions_to(doc.schema_extensions));
    o.child("Directives", list(doc.directives, [](const DirectiveDefinition& d) {
                return Obj()
                    .str("Description", d.description)
                    .str("Name", d.name)
                    .child("Arguments", argument_definitions_to(d.arguments))
                    .child("Locations", strings(d.locations))
                    .boolean("IsRepeatable", d.repeatable)
                    .build();
            }));
    o.child("Definitions", definitions_to(doc.definitions));
    o.child("Extensions", definitions_to(doc.extensions));
    return o.build();
}

std::variant<QueryDocument, std::string> query_from_value(const RV& v) {
    try {
        Decoder d;
        QueryDocument doc;
        each(v, "Operations", [&](const RV& o) {
            Operation op;
            get(o, "Operation", op.operation);
            get(o, "Name", op.name);
            op.variables = d.variables(o, "VariableDefinitions");
            op.directives = d.directives(o);
            op.selection_set = d.selections(o);
            doc.operations.push_back(std::move(op));
        });
        each(v, "Fragments", [&](const RV& o) {
            Fragment f;
            get(o, "Name", f.name);
            f.variables = d.variables(o, "VariableDefinition");
            get(o, "TypeCondition", f.type_condition);
            f.directives = d.directives(o);
            f.selection_set = d.selections(o);
            doc.fragments.push_back(std::move(f));
        });
        return doc;
    } catch (const DecodeError& e) {
        return e.message;
    }
}

std::variant<SchemaDocument, std::string> schema_from_value(const RV& v) {
    try {
        Decoder d;
        SchemaDocument doc;
        doc.schema = d.schema_definitions(v, "Schema");
        doc.schema_extensions = d.schema_definitions(v, "SchemaExtension");
        each(v, "Directives", [&](const RV& o) {
            DirectiveDefinition def;
            get(o, "Description", def.description);
            get(o, "Name", def.name);
            def.arguments = d.argument_definitions(o);
            get(o, "Locations", def.locations);
            get(o, "IsRepeatable", def.repeatable);
            doc.directives.push_back(std::move(def));
        });
        doc.definitions = d.definitions(v, "Definitions");
        doc.extensions = d.definitions(v, "Extensions");
        return doc;
    } catch (const DecodeError& e) {
        return e.message;
    }
}

}  // namespace gavel::stdlib::graphql
