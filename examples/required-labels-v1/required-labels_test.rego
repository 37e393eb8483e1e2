# Tests for required-labels.rego (Rego v1):
#
#   gavel test examples/required-labels-v1
package k8srequiredlabels_v1_test

import rego.v1

import data.k8srequiredlabels

review(labels) := {"kind": {"kind": "Namespace"}, "object": {"metadata": {"name": "team-a", "labels": labels}}}

test_all_labels_present if {
	count(k8srequiredlabels.violation) == 0 with input as {
		"review": review({"owner": "alice", "cost-center": "42"}),
		"parameters": {"labels": ["owner", "cost-center"]},
	}
}

test_missing_label_is_a_violation if {
	violations := k8srequiredlabels.violation with input as {
		"review": review({"owner": "alice"}),
		"parameters": {"labels": ["owner", "cost-center"]},
	}
	violations == {{"msg": `you must provide labels: ["cost-center"]`, "details": {"missing_labels": {"cost-center"}}}}
}

# A table of cases, one result each: the case passes when its value is true.
test_cases[name] := ok if {
	some name, case in {
		"nothing required": {"labels": {}, "required": [], "violations": 0},
		"one missing": {"labels": {"a": "1"}, "required": ["a", "b"], "violations": 1},
		"all present": {"labels": {"a": "1", "b": "2"}, "required": ["a", "b"], "violations": 0},
	}
	found := count(k8srequiredlabels.violation) with input as {"review": review(case.labels), "parameters": {"labels": case.required}}
	ok := found == case.violations
}
