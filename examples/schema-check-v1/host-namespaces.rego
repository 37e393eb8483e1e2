# Pods may not share the node's network, process or IPC namespaces.
#
# This policy has a deliberate typo, to show what a schema is for: line 16
# reads `input.request.kind.knd` where it means `input.request.kind.kind`.
# Rego does not complain: the misspelt path is merely undefined, so `deny`
# never fires and every Pod is admitted (host-namespaces_test.rego shows it).
# Given the shape of an AdmissionReview, the type checker finds it, as OPA's
# does with the same flag:
#
#   gavel check -s examples/schemas/admission-review-v1.json examples/schema-check-v1
#
# (`gavel eval -s ...` and `gavel test -s ...` report it too.)
package kubernetes.host_namespaces

deny contains msg if {
	input.request.kind.knd == "Pod"
	some field in ["hostNetwork", "hostPID", "hostIPC"]
	input.request.object.spec[field] == true
	msg := sprintf("pod %v may not use the node's namespaces (%v)", [input.request.object.metadata.name, field])
}
