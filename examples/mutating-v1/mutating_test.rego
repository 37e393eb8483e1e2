# Tests for mutating.rego and main.rego (Rego v1):
#
#   gavel test examples/mutating-v1
package examples.mutating_v1_test

import rego.v1

import data.examples.mutating
import data.system

pod(metadata) := {"request": {
	"uid": "4b6a3f0e-0001",
	"kind": {"kind": "Pod"},
	"object": {"metadata": metadata, "spec": {"containers": [{"image": "hooli.com/nginx"}]}},
}}

test_escape_follows_json_pointer if {
	mutating.escape("gavel.dev/reviewed-by") == "gavel.dev~1reviewed-by"
	mutating.escape("a~b/c") == "a~0b~1c"
}

test_pod_without_annotations_gets_the_object if {
	patches := mutating.patch with input as pod({"name": "web"})
	patches == {{"op": "add", "path": "/metadata/annotations", "value": {"gavel.dev/reviewed-by": "gavel"}}}
}

test_pod_with_annotations_gets_the_key if {
	patches := mutating.patch with input as pod({"name": "web", "annotations": {"team": "a"}})
	patches == {{"op": "add", "path": "/metadata/annotations/gavel.dev~1reviewed-by", "value": "gavel"}}
}

test_already_annotated_pod_is_left_alone if {
	count(mutating.patch) == 0 with input as pod({"annotations": {"gavel.dev/reviewed-by": "gavel"}})
}

test_main_is_an_admission_review_with_the_patch if {
	review := system.main with input as pod({"name": "web"})
	review.kind == "AdmissionReview"
	review.response.patchType == "JSONPatch"
	patches := json.unmarshal(base64.decode(review.response.patch))
	patches == [{"op": "add", "path": "/metadata/annotations", "value": {"gavel.dev/reviewed-by": "gavel"}}]
}

# Mocking a user function: with an escape that does nothing, the path keeps its raw "/".
test_mocked_escape if {
	patches := mutating.patch with input as pod({"annotations": {}}) with mutating.escape as identity
	patches == {{"op": "add", "path": "/metadata/annotations/gavel.dev/reviewed-by", "value": "gavel"}}
}

identity(s) := s
