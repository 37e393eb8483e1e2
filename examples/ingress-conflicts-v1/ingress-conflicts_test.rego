# Tests for ingress-conflicts.rego (Rego v1):
#
#   gavel test examples/ingress-conflicts-v1
package kubernetes.ingress_conflicts_v1_test

import rego.v1

import data.kubernetes.admission

new_ingress(namespace, hosts) := {"request": {
	"kind": {"kind": "Ingress"},
	"operation": "CREATE",
	"namespace": namespace,
	"object": {"spec": {"rules": [{"host": h} | some h in hosts]}},
}}

test_host_taken_in_another_namespace_is_denied if {
	msgs := admission.deny with input as new_ingress("marketing", ["blog.example.org"])
	msgs == {`invalid ingress host "blog.example.org" (conflicts with web/blog)`}
}

test_every_conflicting_host_is_reported if {
	review := new_ingress("marketing", ["docs.example.org", "handbook.example.org", "shop.example.org"])
	count(admission.deny) == 2 with input as review
}

test_same_namespace_is_allowed if {
	count(admission.deny) == 0 with input as new_ingress("web", ["blog.example.org"])
}

# Mocking the cluster's state for one expression.
test_conflict_with_mocked_ingress if {
	existing := {"shop": {"front": {"spec": {"rules": [{"host": "shop.example.org"}]}}}}
	count(admission.deny) == 1 with input as new_ingress("web", ["shop.example.org"]) with data.kubernetes.ingresses as existing
}
