# Tests for required-labels.rego, Gatekeeper style: each test supplies both
# the object under review and the constraint's parameters as input.
#
#   gavel test examples/required-labels
package k8srequiredlabels_test

import data.k8srequiredlabels

review(labels) = {"kind": {"kind": "Namespace"}, "object": {"metadata": {"name": "team-a", "labels": labels}}}

test_all_labels_present {
    count(k8srequiredlabels.violation) == 0 with input as {
        "review": review({"owner": "alice", "cost-center": "42"}),
        "parameters": {"labels": ["owner", "cost-center"]},
    }
}

test_missing_label_is_a_violation {
    violations := k8srequiredlabels.violation with input as {
        "review": review({"owner": "alice"}),
        "parameters": {"labels": ["owner", "cost-center"]},
    }
    violations == {{"msg": "you must provide labels: [\"cost-center\"]", "details": {"missing_labels": {"cost-center"}}}}
}

test_missing_labels_are_listed_in_order {
    some v
    k8srequiredlabels.violation[v] with input as {"review": review({}), "parameters": {"labels": ["team", "owner"]}}
    v.msg == "you must provide labels: [\"owner\", \"team\"]"
}

# An object without any labels at all still gets a clear message.
test_no_labels_field {
    count(k8srequiredlabels.violation) == 1 with input as {
        "review": {"object": {"metadata": {"name": "bare"}}},
        "parameters": {"labels": ["owner"]},
    }
}

test_no_required_labels {
    count(k8srequiredlabels.violation) == 0 with input as {"review": review({}), "parameters": {"labels": []}}
}
