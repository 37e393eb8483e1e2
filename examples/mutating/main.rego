# The webhook's whole answer, OPA's convention for a Kubernetes admission
# controller: data.system.main is the AdmissionReview sent back to the API
# server. The patch travels base64-encoded JSON, as the API requires.
package system

import data.examples.mutating

main = {
    "apiVersion": "admission.k8s.io/v1",
    "kind": "AdmissionReview",
    "response": response,
}

response = r {
    count(mutating.patch) > 0
    r := {
        "uid": input.request.uid,
        "allowed": true,
        "patchType": "JSONPatch",
        "patch": base64.encode(json.marshal([op | op := mutating.patch[_]])),
    }
}

response = r {
    count(mutating.patch) == 0
    r := {"uid": input.request.uid, "allowed": true}
}
