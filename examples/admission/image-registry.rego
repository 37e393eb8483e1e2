# The classic policy from OPA's Kubernetes admission control guide, in the
# pre-1.0 dialect (run gavel with --v0-compatible): Pods may only use images
# from the company registry.
package kubernetes.admission

deny[msg] {
    input.request.kind.kind == "Pod"
    image := input.request.object.spec.containers[_].image
    not startswith(image, "hooli.com/")
    msg := sprintf("image '%v' comes from untrusted registry", [image])
}
