# Every Pod gets the annotation "gavel.dev/reviewed-by": "gavel". The key holds
# a "/", so the path is given as segments and gavel escapes it (~1).
package kubernetes.mutating

patch contains {"op": "add", "path": "/metadata/annotations", "value": {}} if {
	input.request.kind.kind == "Pod"
	not input.request.object.metadata.annotations
}

patch contains {"op": "add", "path": ["metadata", "annotations", "gavel.dev/reviewed-by"], "value": "gavel"} if {
	input.request.kind.kind == "Pod"
}
