# Every object must carry the labels its constraint asks for, written the way
# OPA Gatekeeper's ConstraintTemplates are (pre-1.0 dialect: --v0-compatible):
#
#   * the rule is `violation[{"msg": msg, "details": {...}}]`: a set of objects,
#     one per problem found;
#   * the object under review is input.review.object (Gatekeeper wraps the
#     AdmissionRequest as input.review);
#   * the constraint's settings are input.parameters, here {"labels": [...]}.
package k8srequiredlabels

violation[{"msg": msg, "details": {"missing_labels": missing}}] {
    provided := {label | input.review.object.metadata.labels[label]}
    required := {label | label := input.parameters.labels[_]}
    missing := required - provided
    count(missing) > 0
    msg := sprintf("you must provide labels: %v", [sort(missing)])
}
