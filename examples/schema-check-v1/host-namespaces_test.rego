# What the typo in host-namespaces.rego does: a Pod on the host network is
# admitted. These tests pass, and that is the bug; with -s the schema turns
# the typo into an error at compile time:
#
#   gavel test -s examples/schemas/admission-review-v1.json examples/schema-check-v1
package kubernetes.host_namespaces_test

import data.kubernetes.host_namespaces

host_network_pod := {"request": {
	"kind": {"group": "", "version": "v1", "kind": "Pod"},
	"operation": "CREATE",
	"object": {
		"metadata": {"name": "web"},
		"spec": {"hostNetwork": true, "containers": [{"name": "web", "image": "nginx"}]},
	},
}}

# deny should hold a message here; the misspelt kind.knd is undefined, so it has none.
test_typo_admits_a_host_network_pod if {
	count(host_namespaces.deny) == 0 with input as host_network_pod
}
