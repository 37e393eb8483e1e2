#include "engine/gatekeeper/constraint_template.hpp"

#include <algorithm>
#include <cctype>

namespace gavel::gatekeeper {

using runtime::Value;

bool is_template_object(const Value& object) {
    auto gvk = gvk_of(object);
    return gvk.group == kTemplatesGroup && gvk.kind == "ConstraintTemplate";
}

bool is_constraint_object(const Value& object) { return gvk_of(object).group == kConstraintsGroup; }

namespace {

bool equal_fold(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

std::vector<std::string> strings_of(const Value* list) {
    std::vector<std::string> out;
    if (!list || !list->is_array()) return out;
    for (const auto& v : list->array_elements())
        if (v.is_string()) out.emplace_back(v.as_string());
    return out;
}

}  // namespace

TemplateRead read_template(const SourcedObject& object) {
    TemplateRead out;
    const Value& v = object.value;
    auto gvk = gvk_of(v);
    if (!is_template_object(v)) {
        out.error = "not a ConstraintTemplate: " + gvk.api_version() + " " + gvk.kind;
        return out;
    }
    if (gvk.version != "v1" && gvk.version != "v1beta1" && gvk.version != "v1alpha1") {
        out.error = "unsupported ConstraintTemplate version " + gvk.version;
        return out;
    }
    ConstraintTemplate t;
    t.file = object.file;
    t.line = object.line;
    t.name = std::string(object_name(v));
    t.kind = std::string(string_at(v, {"spec", "crd", "spec", "names", "kind"}));
    if (t.kind.empty()) {
        out.error = "invalid ConstraintTemplate: ConstraintTemplate \"" + t.name + "\" does not specify CRD Kind";
        return out;
    }
    if (!equal_fold(t.name, t.kind)) {
        std::string lower = t.kind;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out.error = "invalid ConstraintTemplate: the ConstraintTemplate's name \"" + t.name +
                    "\" is not equal to the lowercase of CRD's Kind: \"" + lower + "\"";
        return out;
    }
    if (const Value* schema = value_at(v, {"spec", "crd", "spec", "validation", "openAPIV3Schema"}))
        t.parameters_schema = *schema;
    const Value* targets = value_at(v, {"spec", "targets"});
    if (!targets || !targets->is_array() || targets->size() != 1) {
        out.error = "invalid ConstraintTemplate: must declare exactly one target";
        return out;
    }
    const Value& target = targets->array_elements()[0];
    std::string_view target_name = string_at(target, {"target"});
    if (target_name.empty()) {
        out.error = "invalid ConstraintTemplate: target name must not be empty";
        return out;
    }
    if (target_name != kAdmissionTarget) {
        out.error = "invalid ConstraintTemplate: target \"" + std::string(target_name) +
                    "\" not recognized, known targets [" + std::string(kAdmissionTarget) + "]";
        return out;
    }
    t.operations = strings_of(target.find("operations"));

    std::vector<std::string> engines;
    const Value* rego_source = nullptr;
    if (const Value* code = target.find("code"); code && code->is_array()) {
        for (const auto& entry : code->array_elements()) {
            std::string_view engine = string_at(entry, {"engine"});
            engines.emplace_back(engine);
            if (engine == "Rego" && !rego_source) rego_source = entry.find("source");
        }
    }
    if (std::string_view legacy = string_at(target, {"rego"}); !legacy.empty()) {
        // The conversion replaces the Rego code entry's source with {rego, libs}: no version, so v0.
        t.rego = std::string(legacy);
        t.libs = strings_of(target.find("libs"));
    } else if (rego_source) {
        if (!rego_source->is_object()) {
            out.error = "could not recognize the type of the Rego source";
            return out;
        }
        const Value* rego = rego_source->find("rego");
        if (!rego || !rego->is_string()) {
            out.error = "rego source missing required field: rego";
            return out;
        }
        t.rego = std::string(rego->as_string());
        t.libs = strings_of(rego_source->find("libs"));
        t.rego_v1 = string_at(*rego_source, {"version"}) == "v1";
    } else {
        out.unsupported = !engines.empty();
        std::string list;
        for (const auto& e : engines) list += (list.empty() ? "" : ", ") + e;
        out.error = engines.empty()
                        ? "the template has no Rego source"
                        : "not supported: the template's code is for " + list + " only (gavel runs Rego templates)";
        return out;
    }
    out.value = std::move(t);
    return out;
}

}  // namespace gavel::gatekeeper
