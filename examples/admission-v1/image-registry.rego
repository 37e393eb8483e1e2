# The same policy in Rego v1 syntax (gavel's default): `contains` declares a
# multi-value rule, `if` introduces its body.
package kubernetes.admission

deny contains msg if {
	input.request.kind.kind == "Pod"
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("image '%v' comes from untrusted registry", [container.image])
}
