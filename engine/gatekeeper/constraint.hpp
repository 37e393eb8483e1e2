#pragma once
// A Constraint: an instance of a template's kind (constraints.gatekeeper.sh),
// with its parameters (defaults from the template's schema applied, {} when
// none, as the Rego driver stores them), its match and what to do with a
// violation: spec.enforcementAction deny (default), warn, dryrun, or scoped,
// when spec.scopedEnforcementActions lists actions per enforcement point.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/gatekeeper/constraint_template.hpp"
#include "engine/gatekeeper/match.hpp"
#include "runtime/value.hpp"

namespace gavel::gatekeeper {

// Where a constraint is enforced (Gatekeeper's names).
inline constexpr std::string_view kWebhookEnforcementPoint = "validation.gatekeeper.sh";
inline constexpr std::string_view kAuditEnforcementPoint = "audit.gatekeeper.sh";
inline constexpr std::string_view kGatorEnforcementPoint = "gator.gatekeeper.sh";

struct ScopedEnforcementAction {
    std::string action;
    std::vector<std::string> enforcement_points;  // "*": all
};

struct Constraint {
    std::string kind;
    std::string name;
    runtime::Value object;      // as read
    runtime::Value parameters;  // spec.parameters with defaults, {} when absent
    Match match;
    std::string enforcement_action = "deny";
    std::vector<ScopedEnforcementAction> scoped_actions;
    std::string file;
    uint32_t line = 0;

    bool scoped() const { return enforcement_action == "scoped"; }
    // The scoped actions for an enforcement point; empty: the constraint is not enforced there.
    std::vector<std::string> actions_at(std::string_view enforcement_point) const;
};

struct ConstraintRead {
    std::optional<Constraint> value;
    std::string error;
};

// `tmpl` supplies the parameters' schema (defaults); null when the kind's template is unknown.
ConstraintRead read_constraint(const SourcedObject& object, const ConstraintTemplate* tmpl);

// Structural defaulting as the API server applies a CRD schema's `default`s:
// properties missing from an object that is present get their default; into
// nested objects, additionalProperties and array items.
runtime::Value apply_schema_defaults(const runtime::Value& value, const runtime::Value& schema);

}  // namespace gavel::gatekeeper
