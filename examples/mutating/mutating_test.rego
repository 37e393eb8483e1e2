# Tests for mutating.rego and main.rego:
#
#   gavel test examples/mutating
package examples.mutating_test

import data.examples.mutating
import data.system

pod(metadata) = {"request": {
    "uid": "4b6a3f0e-0001",
    "kind": {"kind": "Pod"},
    "object": {"metadata": metadata, "spec": {"containers": [{"image": "hooli.com/nginx"}]}},
}}

test_escape_follows_json_pointer {
    mutating.escape("gavel.dev/reviewed-by") == "gavel.dev~1reviewed-by"
    mutating.escape("a~b/c") == "a~0b~1c"
}

test_pod_without_annotations_gets_the_object {
    mutating.patch == {{"op": "add", "path": "/metadata/annotations", "value": {"gavel.dev/reviewed-by": "gavel"}}} with input as pod({"name": "web"})
}

test_pod_with_annotations_gets_the_key {
    patches := mutating.patch with input as pod({"name": "web", "annotations": {"team": "a"}})
    patches == {{"op": "add", "path": "/metadata/annotations/gavel.dev~1reviewed-by", "value": "gavel"}}
}

test_already_annotated_pod_is_left_alone {
    count(mutating.patch) == 0 with input as pod({"annotations": {"gavel.dev/reviewed-by": "gavel"}})
}

test_other_kinds_are_left_alone {
    count(mutating.patch) == 0 with input as {"request": {"kind": {"kind": "Service"}, "object": {"metadata": {}}}}
}

test_main_is_an_admission_review_with_the_patch {
    review := system.main with input as pod({"name": "web"})
    review.apiVersion == "admission.k8s.io/v1"
    review.kind == "AdmissionReview"
    review.response.uid == "4b6a3f0e-0001"
    review.response.allowed == true
    review.response.patchType == "JSONPatch"
    json.unmarshal(base64.decode(review.response.patch)) == [{"op": "add", "path": "/metadata/annotations", "value": {"gavel.dev/reviewed-by": "gavel"}}]
}

test_main_without_patch_just_allows {
    review := system.main with input as pod({"annotations": {"gavel.dev/reviewed-by": "gavel"}})
    review.response == {"uid": "4b6a3f0e-0001", "allowed": true}
}
