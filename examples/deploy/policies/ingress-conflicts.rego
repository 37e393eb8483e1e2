# Ingress hosts must be unique across namespaces. Existing Ingresses are
# replicated into data.kubernetes.ingresses[namespace][name] by the optional
# kube-mgmt sidecar (kube-mgmt.yaml).
package kubernetes.ingress

deny contains msg if {
	input.request.kind.kind == "Ingress"
	some rule in input.request.object.spec.rules
	some other_ns, other_name
	other := data.kubernetes.ingresses[other_ns][other_name]
	other_ns != input.request.namespace
	some other_rule in other.spec.rules
	other_rule.host == rule.host
	msg := sprintf("invalid ingress host %q (conflicts with %v/%v)", [rule.host, other_ns, other_name])
}
