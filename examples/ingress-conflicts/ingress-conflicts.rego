# Ingress hosts must be unique across namespaces: a new Ingress may not claim
# a host that an Ingress in another namespace already serves (the policy of
# OPA's Kubernetes admission tutorial, pre-1.0 dialect: --v0-compatible).
#
# The Ingresses already in the cluster are data, not input: kube-mgmt
# replicates them into data.kubernetes.ingresses[namespace][name]. Here the
# file kubernetes/ingresses/data.json stands in for the cluster; gavel loads a
# data file at its directory's path below the directory given.
package kubernetes.admission

import data.kubernetes.ingresses

deny[msg] {
    input.request.kind.kind == "Ingress"
    input.request.operation == "CREATE"
    host := input.request.object.spec.rules[_].host
    ingress := ingresses[other_ns][other_name]
    other_ns != input.request.namespace
    ingress.spec.rules[_].host == host
    msg := sprintf("invalid ingress host %q (conflicts with %v/%v)", [host, other_ns, other_name])
}
