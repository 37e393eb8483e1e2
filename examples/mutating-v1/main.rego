# data.system.main: the AdmissionReview the webhook answers with (Rego v1).
package system

import rego.v1

import data.examples.mutating

main := {
	"apiVersion": "admission.k8s.io/v1",
	"kind": "AdmissionReview",
	"response": response,
}

response := {
	"uid": input.request.uid,
	"allowed": true,
	"patchType": "JSONPatch",
	"patch": base64.encode(json.marshal([op | some op in mutating.patch])),
} if count(mutating.patch) > 0

response := {"uid": input.request.uid, "allowed": true} if count(mutating.patch) == 0
