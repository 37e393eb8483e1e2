# Ingress hosts must be unique across namespaces (Rego v1; the v0 version and
# its explanation are in ../ingress-conflicts). Existing Ingresses come from
# data.kubernetes.ingresses[namespace][name] (kubernetes/ingresses/data.json).
package kubernetes.admission

import rego.v1

import data.kubernetes.ingresses

deny contains msg if {
	input.request.kind.kind == "Ingress"
	input.request.operation == "CREATE"
	some rule in input.request.object.spec.rules
	some other_ns, other_name
	ingress := ingresses[other_ns][other_name]
	other_ns != input.request.namespace
	some other_rule in ingress.spec.rules
	other_rule.host == rule.host
	msg := sprintf("invalid ingress host %q (conflicts with %v/%v)", [rule.host, other_ns, other_name])
}
