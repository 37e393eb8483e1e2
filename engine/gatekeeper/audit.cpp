#include "engine/gatekeeper/audit.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace gavel::gatekeeper {

using runtime::Value;

namespace {

std::string truncated(std::string s) {
    constexpr std::size_t kMessageSize = 256;
    if (s.size() > kMessageSize) s = s.substr(0, kMessageSize - 3) + "...";
    return s;
}

auto order_key(const AuditViolation& v) {
    return std::tie(v.group, v.version, v.kind, v.namespace_name, v.name, v.message, v.enforcement_action);
}

}  // namespace

AuditReport audit(const PolicySet& set, const std::vector<SourcedObject>& objects, std::size_t limit) {
    AuditReport report;
    report.objects = objects.size();
    // Namespaces among the objects first, then the inventory's.
    std::map<std::string, const Value*, std::less<>> namespaces;
    for (const auto& o : objects)
        if (is_namespace_object(o.value)) namespaces[std::string(object_name(o.value))] = &o.value;
    std::map<const Constraint*, ConstraintAudit> by_constraint;
    for (const auto& [kind, entry] : set.entries())
        for (const auto& c : entry.constraints) by_constraint[c.get()].constraint = c;
    for (const auto& o : objects) {
        std::string_view ns = object_namespace(o.value);
        const Value* ns_object = nullptr;
        if (!ns.empty()) {
            auto it = namespaces.find(ns);
            ns_object = it != namespaces.end() ? it->second : set.namespace_object(ns);
        }
        Review review = review_of_object(o.value, ns_object ? *ns_object : Value(), true);
        ReviewOptions options;
        options.enforcement_point = kAuditEnforcementPoint;
        ReviewOutcome outcome = set.review(review, options);
        if (outcome.error) {
            report.errors.push_back(o.file + ":" + std::to_string(o.line) + ": " + *outcome.error);
            continue;
        }
        auto gvk = gvk_of(o.value);
        for (const auto& v : outcome.violations) {
            ConstraintAudit& ca = by_constraint[v.constraint.get()];
            ca.constraint = v.constraint;
            ++ca.total_violations;
            AuditViolation av{gvk.group,
                              gvk.version,
                              gvk.kind,
                              std::string(ns),
                              std::string(object_name(o.value)),
                              truncated(v.message),
                              v.constraint->enforcement_action,
                              {}};
            if (v.constraint->scoped()) av.enforcement_actions = v.actions;
            ca.violations.push_back(std::move(av));
        }
    }
    for (auto& [ptr, ca] : by_constraint) {
        std::sort(ca.violations.begin(), ca.violations.end(),
                  [](const AuditViolation& a, const AuditViolation& b) { return order_key(a) < order_key(b); });
        if (ca.violations.size() > limit) ca.violations.resize(limit);
        report.constraints.push_back(std::move(ca));
    }
    std::sort(
        report.constraints.begin(), report.constraints.end(), [](const ConstraintAudit& a, const ConstraintAudit& b) {
            return std::tie(a.constraint->kind, a.constraint->name) < std::tie(b.constraint->kind, b.constraint->name);
        });
    return report;
}

Value audit_report_value(const AuditReport& report) {
    auto str = [](std::string_view s) { return Value::string(s); };
    runtime::ArrayBuilder list;
    for (const auto& ca : report.constraints) {
        runtime::ArrayBuilder violations;
        for (const auto& v : ca.violations) {
            runtime::ObjectBuilder b;
            b.insert(str("group"), str(v.group));
            b.insert(str("version"), str(v.version));
            b.insert(str("kind"), str(v.kind));
            b.insert(str("name"), str(v.name));
            if (!v.namespace_name.empty()) b.insert(str("namespace"), str(v.namespace_name));
            b.insert(str("message"), str(v.message));
            b.insert(str("enforcementAction"), str(v.enforcement_action));
            if (!v.enforcement_actions.empty()) {
                runtime::ArrayBuilder actions;
                for (const auto& a : v.enforcement_actions) actions.push_back(str(a));
                b.insert(str("enforcementActions"), actions.build());
            }
            violations.push_back(b.build());
        }
        list.push_back(Value::object({
            {str("kind"), str(ca.constraint->kind)},
            {str("name"), str(ca.constraint->name)},
            {str("enforcementAction"), str(ca.constraint->enforcement_action)},
            {str("totalViolations"), Value::integer(ca.total_violations)},
            {str("violations"), violations.build()},
        }));
    }
    return list.build();
}

}  // namespace gavel::gatekeeper
