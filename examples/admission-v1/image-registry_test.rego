# Unit tests for image-registry.rego (Rego v1):
#
#   gavel test examples/admission-v1
#
# `with input as` replaces the input for one expression; `with data.x as`
# and `with f as g` replace documents and functions the same way.
package kubernetes.admission_v1_test

import rego.v1

import data.kubernetes.admission

unsafe_image := {"request": {
	"kind": {"kind": "Pod"},
	"object": {"spec": {"containers": [
		{"name": "app", "image": "hooli.com/nginx"},
		{"name": "helper", "image": "busybox"},
	]}},
}}

safe_image := {"request": {
	"kind": {"kind": "Pod"},
	"object": {"spec": {"containers": [{"name": "app", "image": "hooli.com/nginx"}]}},
}}

test_image_safety if {
	count(admission.deny) == 1 with input as unsafe_image
}

test_denial_names_the_image if {
	"image 'busybox' comes from untrusted registry" in admission.deny with input as unsafe_image
}

test_trusted_images_are_allowed if {
	count(admission.deny) == 0 with input as safe_image
}

# One test per image, each reported on its own: a test written as an object
# (`test_x[key] if`) reports each key as a case, which passes when its value is
# true (`if` gives `true`). An image whose body fails is a failing case.
# (Not `test_x contains key`: a set is not `true`, so opa test fails it.)
test_untrusted_images[image] if {
	some image in ["nginx", "mysql:8", "docker.io/library/redis"]
	pod := {"request": {"kind": {"kind": "Pod"}, "object": {"spec": {"containers": [{"image": image}]}}}}
	count(admission.deny) == 1 with input as pod
}

# Mocking a builtin: if startswith always said yes, nothing would be denied.
test_mocked_startswith if {
	count(admission.deny) == 0 with input as unsafe_image with startswith as true
}

test_other_kinds_are_ignored if {
	deployment := {"request": {"kind": {"kind": "Deployment"}, "object": {"spec": {"containers": [{"image": "busybox"}]}}}}
	count(admission.deny) == 0 with input as deployment
}
