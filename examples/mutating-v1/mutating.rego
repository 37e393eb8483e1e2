# The mutating policy in Rego v1 (see ../mutating for the explanation): every
# Pod gets the annotation "gavel.dev/reviewed-by": "gavel", as JSONPatch
# operations whose paths escape "/" in keys as "~1" (JSON Pointer).
package examples.mutating

import rego.v1

annotation_key := "gavel.dev/reviewed-by"

annotation_value := "gavel"

escape(key) := replace(replace(key, "~", "~0"), "/", "~1")

is_pod if input.request.kind.kind == "Pod"

patch contains {"op": "add", "path": "/metadata/annotations", "value": {annotation_key: annotation_value}} if {
	is_pod
	not input.request.object.metadata.annotations
}

patch contains op if {
	is_pod
	input.request.object.metadata.annotations
	# Not `not annotations[annotation_key] == annotation_value`: OPA evaluates the
	# operands of a negated call first, so a missing key would make that undefined.
	object.get(input.request.object.metadata.annotations, annotation_key, null) != annotation_value
	op := {"op": "add", "path": sprintf("/metadata/annotations/%s", [escape(annotation_key)]), "value": annotation_value}
}
