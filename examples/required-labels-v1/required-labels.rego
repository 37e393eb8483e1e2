# Required labels, Gatekeeper style, in Rego v1 (see ../required-labels for the
# explanation): `violation contains {...} if` is the v1 spelling of
# `violation[{...}] { ... }`.
package k8srequiredlabels

import rego.v1

violation contains {"msg": msg, "details": {"missing_labels": missing}} if {
	provided := {label | some label, _ in input.review.object.metadata.labels}
	required := {label | some label in input.parameters.labels}
	missing := required - provided
	count(missing) > 0
	msg := sprintf("you must provide labels: %v", [sort(missing)])
}
