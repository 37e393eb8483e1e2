# The same policy in Rego v1 syntax (gavel's default): `contains` declares a
# multi-value rule, `if` introduces its body. `import rego.v1` keeps the
# module v1 even when gavel runs with --v0-compatible (as when all examples are
# tested at once).
package kubernetes.admission

import rego.v1

deny contains msg if {
	input.request.kind.kind == "Pod"
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("image '%v' comes from untrusted registry", [container.image])
}
