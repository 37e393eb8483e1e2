# Tests for ingress-conflicts.rego:
#
#   gavel test examples/ingress-conflicts
#
# The existing Ingresses come from kubernetes/ingresses/data.json; a test can
# also replace them with `with data.kubernetes.ingresses as {...}`.
package kubernetes.ingress_conflicts_test

import data.kubernetes.admission

# An AdmissionReview creating an Ingress in `namespace` for `hosts`.
new_ingress(namespace, hosts) = review {
    review := {"request": {
        "kind": {"kind": "Ingress"},
        "operation": "CREATE",
        "namespace": namespace,
        "object": {"spec": {"rules": [{"host": h} | h := hosts[_]]}},
    }}
}

test_host_taken_in_another_namespace_is_denied {
    msgs := admission.deny with input as new_ingress("marketing", ["shop.example.com"])
    msgs == {`invalid ingress host "shop.example.com" (conflicts with production/shop)`}
}

test_every_conflicting_host_is_reported {
    review := new_ingress("marketing", ["www.shop.example.com", "staging.shop.example.com", "blog.example.com"])
    count(admission.deny) == 2 with input as review
}

# Re-using a host within its own namespace is an update, not a conflict.
test_same_namespace_is_allowed {
    count(admission.deny) == 0 with input as new_ingress("production", ["shop.example.com"])
}

test_new_host_is_allowed {
    count(admission.deny) == 0 with input as new_ingress("marketing", ["blog.example.com"])
}

test_updates_are_not_checked {
    review := json.patch(new_ingress("marketing", ["shop.example.com"]), [{"op": "replace", "path": "/request/operation", "value": "UPDATE"}])
    count(admission.deny) == 0 with input as review
}

# The cluster's state replaced for one expression: no Ingresses, no conflicts.
test_empty_cluster {
    count(admission.deny) == 0 with input as new_ingress("marketing", ["shop.example.com"]) with data.kubernetes.ingresses as {}
}
