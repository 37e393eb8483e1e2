# Unit tests for image-registry.rego, in the same pre-1.0 dialect:
#
#   gavel test examples/admission
#
# A test is any rule named test_*; it passes when it is true. `with input as`
# replaces the input document for one expression: each test builds the
# AdmissionReview it needs and counts the denials the policy produces.
package kubernetes.admission_test

import data.kubernetes.admission

# A Pod whose second container comes from Docker Hub, not from hooli.com.
unsafe_image = {"request": {
    "kind": {"kind": "Pod"},
    "object": {"spec": {"containers": [
        {"name": "app", "image": "hooli.com/nginx"},
        {"name": "helper", "image": "busybox"},
    ]}},
}}

safe_image = {"request": {
    "kind": {"kind": "Pod"},
    "object": {"spec": {"containers": [{"name": "app", "image": "hooli.com/nginx"}]}},
}}

test_image_safety {
    count(admission.deny) == 1 with input as unsafe_image
}

test_denial_names_the_image {
    admission.deny["image 'busybox' comes from untrusted registry"] with input as unsafe_image
}

test_trusted_images_are_allowed {
    count(admission.deny) == 0 with input as safe_image
}

# Every untrusted container is reported, not just the first.
test_each_untrusted_container_is_denied {
    pod := {"request": {"kind": {"kind": "Pod"}, "object": {"spec": {"containers": [
        {"image": "nginx"}, {"image": "mysql"}, {"image": "hooli.com/redis"},
    ]}}}}
    count(admission.deny) == 2 with input as pod
}

# The policy is about Pods: other kinds are none of its business.
test_other_kinds_are_ignored {
    deployment := {"request": {"kind": {"kind": "Deployment"}, "object": {"spec": {"containers": [{"image": "busybox"}]}}}}
    count(admission.deny) == 0 with input as deployment
}
