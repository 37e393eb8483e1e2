# A mutating admission policy (pre-1.0 dialect: --v0-compatible): every Pod
# gets the annotation "gavel.dev/reviewed-by": "gavel". The policy answers
# with JSONPatch operations (RFC 6902) that the API server applies.
#
# Two details every mutating policy meets:
#   * a patch path is a JSON Pointer (RFC 6901): "/" inside a key is written
#     "~1" and "~" is written "~0", so the key "gavel.dev/reviewed-by" is the
#     path segment "gavel.dev~1reviewed-by";
#   * "add" needs the parent to exist: a Pod without annotations gets the
#     whole annotations object instead.
package examples.mutating

annotation_key = "gavel.dev/reviewed-by"

annotation_value = "gavel"

# A key as a JSON Pointer segment.
escape(key) = replace(replace(key, "~", "~0"), "/", "~1")

is_pod {
    input.request.kind.kind == "Pod"
}

patch[op] {
    is_pod
    not input.request.object.metadata.annotations
    op := {"op": "add", "path": "/metadata/annotations", "value": {annotation_key: annotation_value}}
}

patch[op] {
    is_pod
    input.request.object.metadata.annotations
    # Not `not annotations[annotation_key] == annotation_value`: OPA evaluates the
    # operands of a negated call first, so a missing key would make that undefined.
    object.get(input.request.object.metadata.annotations, annotation_key, null) != annotation_value
    op := {"op": "add", "path": sprintf("/metadata/annotations/%s", [escape(annotation_key)]), "value": annotation_value}
}
