#pragma once
// A ConstraintTemplate (templates.gatekeeper.sh v1, v1beta1, v1alpha1) read
// as Gatekeeper's conversion reads it: one target, admission.k8s.gatekeeper.sh;
// the Rego source from `code: [{engine: Rego, source: {rego, libs, version}}]`,
// or the legacy `rego`/`libs` fields, which win over a Rego code entry (as the
// conversion injects them). A template whose only code is another engine
// (K8sNativeValidation, CEL) is not supported and says so.

#include <optional>
#include <string>
#include <vector>

#include "engine/gatekeeper/kube_object.hpp"
#include "runtime/value.hpp"

namespace gavel::gatekeeper {

inline constexpr std::string_view kTemplatesGroup = "templates.gatekeeper.sh";
inline constexpr std::string_view kConstraintsGroup = "constraints.gatekeeper.sh";
inline constexpr std::string_view kAdmissionTarget = "admission.k8s.gatekeeper.sh";

struct ConstraintTemplate {
    std::string name;  // metadata.name: the kind in lower case
    std::string kind;  // the Constraint kind it defines
    std::string rego;  // the entry module (with the `violation` rule)
    std::vector<std::string> libs;
    bool rego_v1 = false;                 // source.version "v1"; anything else is v0, as Gatekeeper
    runtime::Value parameters_schema;     // openAPIV3Schema (null when none)
    std::vector<std::string> operations;  // targets[0].operations; empty: all
    std::string file;                     // where it was read, for errors
    uint32_t line = 0;
};

struct TemplateRead {
    std::optional<ConstraintTemplate> value;
    std::string error;         // why not (with Gatekeeper's wording where it has one)
    bool unsupported = false;  // valid for Gatekeeper, but gavel cannot run it (CEL only)
};

TemplateRead read_template(const SourcedObject& object);

bool is_template_object(const runtime::Value& object);
bool is_constraint_object(const runtime::Value& object);

}  // namespace gavel::gatekeeper
