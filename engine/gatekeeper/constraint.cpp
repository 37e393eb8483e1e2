#include "engine/gatekeeper/constraint.hpp"

#include <algorithm>

namespace gavel::gatekeeper {

using runtime::Value;

std::vector<std::string> Constraint::actions_at(std::string_view ep) const {
    std::vector<std::string> out;
    for (const auto& s : scoped_actions) {
        bool here = std::any_of(s.enforcement_points.begin(), s.enforcement_points.end(),
                                [&](const std::string& p) { return p == "*" || p == ep; });
        if (here && std::find(out.begin(), out.end(), s.action) == out.end()) out.push_back(s.action);
    }
    std::sort(out.begin(), out.end());
    return out;
}

Value apply_schema_defaults(const Value& value, const Value& schema, int depth);

namespace {

Value defaults_in_object(const Value& value, const Value& schema, int depth) {
    const Value* properties = schema.find("properties");
    const Value* additional = schema.find("additionalProperties");
    runtime::ObjectBuilder b(value.size() + 4);
    for (const auto& e : value.object_entries()) {
        const Value* sub = properties && properties->is_object() ? properties->find(e.key) : nullptr;
        if (!sub && additional && additional->is_object()) sub = additional;
        b.insert(e.key, sub ? apply_schema_defaults(e.value, *sub, depth + 1) : e.value);
    }
    if (properties && properties->is_object())
        for (const auto& p : properties->object_entries())
            if (!value.find(p.key) && p.value.is_object())
                if (const Value* d = p.value.find("default"))
                    b.insert(p.key, apply_schema_defaults(*d, p.value, depth + 1));
    return b.build();
}

}  // namespace

Value apply_schema_defaults(const Value& value, const Value& schema, int depth) {
    if (depth > 64 || !schema.is_object()) return value;  // schemas are shallow; a deep one is left as is
    if (value.is_object()) return defaults_in_object(value, schema, depth);
    if (value.is_array()) {
        const Value* items = schema.find("items");
        if (!items || !items->is_object()) return value;
        runtime::ArrayBuilder b(value.size());
        for (const auto& v : value.array_elements()) b.push_back(apply_schema_defaults(v, *items, depth + 1));
        return b.build();
    }
    return value;
}

Value apply_schema_defaults(const Value& value, const Value& schema) { return apply_schema_defaults(value, schema, 0); }

ConstraintRead read_constraint(const SourcedObject& object, const ConstraintTemplate* tmpl) {
    ConstraintRead out;
    const Value& v = object.value;
    Constraint c;
    c.object = v;
    c.file = object.file;
    c.line = object.line;
    c.name = std::string(object_name(v));
    auto gvk = gvk_of(v);
    c.kind = gvk.kind;
    if (c.name.empty()) {
        out.error = "invalid Constraint: missing metadata.name";
        return out;
    }
    if (gvk.group != kConstraintsGroup) {
        out.error = "invalid Constraint: wrong API Group for Constraint \"" + c.name + "\", got \"" + gvk.group +
                    "\" but need \"" + std::string(kConstraintsGroup) + "\"";
        return out;
    }
    const Value* spec = v.find("spec");
    if (spec && !spec->is_null() && !spec->is_object()) {
        out.error = "invalid Constraint: spec must be an object";
        return out;
    }
    Value params = Value::empty_object();
    if (const Value* p = spec ? spec->find("parameters") : nullptr; p && !p->is_null()) params = *p;
    if (tmpl && !tmpl->parameters_schema.is_null() && (spec && spec->find("parameters")))
        params = apply_schema_defaults(params, tmpl->parameters_schema);
    c.parameters = params;
    if (const Value* m = spec ? spec->find("match") : nullptr) {
        std::string error;
        if (!parse_match(*m, c.match, error)) {
            out.error = "invalid Constraint: " + error;
            return out;
        }
    }
    if (const Value* a = spec ? spec->find("enforcementAction") : nullptr; a && !a->is_null()) {
        if (!a->is_string()) {
            out.error = "invalid Constraint: invalid spec.enforcementAction";
            return out;
        }
        c.enforcement_action = std::string(a->as_string());
    }
    if (c.scoped()) {
        const Value* list = spec->find("scopedEnforcementActions");
        if (!list || !list->is_array()) {
            out.error = "missing required field: spec.scopedEnforcementActions must be defined";
            return out;
        }
        for (const auto& entry : list->array_elements()) {
            ScopedEnforcementAction s;
            s.action = std::string(string_at(entry, {"action"}));
            if (const Value* eps = entry.is_object() ? entry.find("enforcementPoints") : nullptr;
                eps && eps->is_array())
                for (const auto& ep : eps->array_elements()) s.enforcement_points.emplace_back(string_at(ep, {"name"}));
            if (s.action.empty()) {
                out.error =
                    "scopedEnforcementActions value must be a [{action: string, enforcementPoints: [{name: string}]}]";
                return out;
            }
            c.scoped_actions.push_back(std::move(s));
        }
    }
    out.value = std::move(c);
    return out;
}

}  // namespace gavel::gatekeeper
