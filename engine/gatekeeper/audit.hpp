#pragma once
// Gatekeeper's audit over a set of existing objects: each object is reviewed
// (enforcement point audit.gatekeeper.sh, its Namespace from the objects or the
// inventory), and per constraint the report keeps the total number of
// violations and the first `limit` (Gatekeeper's --constraint-violations-limit,
// 20) in Gatekeeper's order (group, version, kind, namespace, name, message,
// action), messages cut to 256 bytes as in a constraint's status.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/gatekeeper/policy_set.hpp"

namespace gavel::gatekeeper {

struct AuditViolation {
    std::string group, version, kind, namespace_name, name, message, enforcement_action;
    std::vector<std::string> enforcement_actions;  // a scoped constraint's actions at audit
};

struct ConstraintAudit {
    std::shared_ptr<const Constraint> constraint;
    std::int64_t total_violations = 0;
    std::vector<AuditViolation> violations;
};

struct AuditReport {
    std::vector<ConstraintAudit> constraints;  // every constraint, by kind and name
    std::vector<std::string> errors;           // objects whose review failed
    std::size_t objects = 0;
};

AuditReport audit(const PolicySet& set, const std::vector<SourcedObject>& objects, std::size_t limit = 20);

// The report as JSON: [{"kind", "name", "enforcementAction", "totalViolations", "violations": [...]}]
// with each violation as a constraint's status lists it.
runtime::Value audit_report_value(const AuditReport& report);

}  // namespace gavel::gatekeeper
