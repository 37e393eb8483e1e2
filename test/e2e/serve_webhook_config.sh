#!/usr/bin/env bash
# gavel webhook-config: the manifests for examples/deploy are current, flags are
# checked, and the deploy policies serve the decisions the README promises.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
deploy=examples/deploy
check_manifests=$(realpath "${2:-build/test/manifests/check_manifests}")

{ echo "# Generated: gavel webhook-config --policies examples/deploy/policies --service gavel/gavel --inject-ca-from gavel/gavel-tls"
  "$gavel" webhook-config --policies "$deploy/policies" --service gavel/gavel --inject-ca-from gavel/gavel-tls; } > "$work/wc.yaml"
if diff -u "$deploy/webhook-configuration.yaml" "$work/wc.yaml"; then pass "examples/deploy/webhook-configuration.yaml is current"
else fail "examples/deploy/webhook-configuration.yaml differs from gavel webhook-config's output"; fi

# The deployment's gavel flags exist, its probes use the diagnostic listener, and a rolling
# update gets its preStop.
"$gavel" serve --help > "$work/help.txt"
for manifest in deployment.yaml kube-mgmt.yaml; do
    flags=$(awk '/- serve$/ {on = 1; next} on && /^ *- --/ {sub(/^ *- /, ""); sub(/=.*/, ""); print; next} {on = 0}' "$deploy/$manifest")
    [[ -n $flags ]] || fail "$manifest: no gavel serve arguments found"
    for flag in $flags; do
        grep -q -- "$flag[ ,]" "$work/help.txt" || fail "$manifest: gavel serve has no flag $flag"
    done
    pass "$manifest: $(echo $flags | wc -w) gavel serve flags, all known"
done
grep -q 'httpGet: {path: /health, port: diagnostic}' "$deploy/deployment.yaml" && grep -q 'httpGet: {path: /health/ready, port: diagnostic}' "$deploy/deployment.yaml" \
    && pass "deployment.yaml: probes on the diagnostic listener" || fail "deployment.yaml: probes not on the diagnostic listener"
grep -q 'preStop:' "$deploy/deployment.yaml" && pass "deployment.yaml: preStop" || fail "deployment.yaml: no preStop"
grep -q -- '--opa-url=http://127.0.0.1:8181/v1' "$deploy/kube-mgmt.yaml" && pass "kube-mgmt.yaml: kube-mgmt uses the REST listener" || fail "kube-mgmt.yaml: kube-mgmt URL"

printf -- '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' > "$work/ca.pem"
"$gavel" webhook-config --policies "$deploy/policies" --url https://gavel.example.com:8443 --ca-bundle "$work/ca.pem" > "$work/url.yaml"
grep -q 'url: "https://gavel.example.com:8443/validate/kubernetes/admission"' "$work/url.yaml" && pass "url clientConfig" || fail "url clientConfig"
grep -q "caBundle: $(base64 -w0 < "$work/ca.pem")" "$work/url.yaml" && pass "caBundle is the base64 PEM" || fail "caBundle"
grep -q 'resources: \["ingresses"\]' "$work/url.yaml" && pass "resources from kinds" || fail "resources from kinds"
"$gavel" webhook-config --policies "$deploy/policies" > /dev/null 2> "$work/err"
expect_eq "neither --url nor --service -> exit 1" "$?" 1
"$gavel" webhook-config --policies "$deploy/policies" --url http://insecure > /dev/null 2>&1
expect_eq "plain http url refused" "$?" 1

# Every webhook leaves out the control plane's namespaces and gavel's own, by name.
grep -c 'values: \["kube-system", "kube-node-lease", "gavel"\]' "$work/url.yaml" | grep -qx 3 && pass "namespaces excluded by name" || fail "namespaceSelector"
grep -q 'failurePolicy: Ignore' "$work/url.yaml" && pass "mutating: failurePolicy Ignore" || fail "mutating failurePolicy"
"$check_manifests" "$work/url.yaml" > /dev/null && pass "generated YAML passes the schema check" || fail "generated YAML: $("$check_manifests" "$work/url.yaml" 2>&1)"

# A package whose rules name no kind: refused unless --all-resources.
mkdir -p "$work/anykind"
printf 'package anykind\n\ndeny contains "x" if input.request.object.spec.hostNetwork\n' > "$work/anykind/p.rego"
"$gavel" webhook-config --policies "$work/anykind" --service gavel/gavel > "$work/out" 2> "$work/err"
expect_eq "no kind: refused (exit 1)" "$?" 1
grep -q -- '--all-resources' "$work/err" && pass "the refusal names --all-resources" || fail "refusal: $(cat "$work/err")"
"$gavel" webhook-config --policies "$work/anykind" --service gavel/gavel --all-resources > "$work/out" \
    && grep -q 'resources: \["\*"\]' "$work/out" && pass "--all-resources: resources [\"*\"]" || fail "--all-resources"
# A custom resource: --resource.
printf 'package crd\n\ndeny contains "x" if input.request.kind.kind == "Widget"\n' > "$work/anykind/p.rego"
"$gavel" webhook-config --policies "$work/anykind" --service gavel/gavel > /dev/null 2> "$work/err"
grep -q -- '--resource Widget=' "$work/err" && pass "unknown kind: names --resource" || fail "unknown kind: $(cat "$work/err")"
"$gavel" webhook-config --policies "$work/anykind" --service gavel/gavel --resource Widget=example.com/v1/widgets > "$work/out" \
    && grep -q 'apiGroups: \["example.com"\]' "$work/out" && pass "--resource" || fail "--resource"
# A policy that does not compile: its errors, exit 1.
printf 'package broken\n\ndeny contains x if { y := 1 }\n' > "$work/anykind/p.rego"
"$gavel" webhook-config --policies "$work/anykind" --service gavel/gavel > /dev/null 2> "$work/err"
expect_eq "compile errors: exit 1" "$?" 1
grep -q 'rego_' "$work/err" && pass "compile errors shown" || fail "compile errors: $(cat "$work/err")"

# KEP-5793 static manifests: one file per configuration, in validating/ and mutating/.
"$gavel" webhook-config --policies "$deploy/policies" --url https://10.0.0.5:8443 --ca-bundle "$work/ca.pem" --static "$work/static" > "$work/out" \
    && pass "--static writes" || fail "--static: $(cat "$work/out")"
[[ -f $work/static/validating/gavel-validating.static.k8s.io.yaml && -f $work/static/mutating/gavel-mutating.static.k8s.io.yaml ]] \
    && pass "--static: validating/ and mutating/ files named *.static.k8s.io" || fail "--static files: $(find "$work/static")"
grep -q 'service:' "$work/static"/*/*.yaml && fail "--static: a service clientConfig" || pass "--static: url only"
"$check_manifests" "$work/static/validating" "$work/static/mutating" > /dev/null && pass "--static: schema check" || fail "--static schema"
"$gavel" webhook-config --policies "$deploy/policies" --service gavel/gavel --ca-bundle "$work/ca.pem" --static "$work/s2" > /dev/null 2> "$work/err"
grep -q 'clientConfig.service is not allowed' "$work/err" && pass "--static refuses a service" || fail "--static service: $(cat "$work/err")"
"$gavel" webhook-config --policies "$deploy/policies" --url https://10.0.0.5:8443 --static "$work/s3" > /dev/null 2> "$work/err"
grep -q 'caBundle is required' "$work/err" && [[ ! -e $work/s3 ]] && pass "--static refuses no caBundle, writes nothing" || fail "--static no CA: $(cat "$work/err")"

# The deploy policies as the README runs them.
start_server deploy --policies "$deploy/policies" --insecure-http || exit 1
curl -sS -o "$work/r.json" --data-binary @examples/admission-v1/pod.json "http://127.0.0.1:$deploy_port/validate/kubernetes/admission"
expect_eq "deploy policies: nginx denied" "$(json_get "$work/r.json" 'contains(input.response.status.message, "image '"'"'nginx'"'"' comes from untrusted registry")')" true
curl -sS -o "$work/r.json" --data-binary @examples/admission-v1/pod.json "http://127.0.0.1:$deploy_port/mutate/kubernetes/mutating"
json_get "$work/r.json" input.response.patch | base64 -d > "$work/patch.json"
expect_eq "deploy policies: annotation patch" "$(json_get "$work/patch.json" '[op.path | some op in input]')" \
    '["/metadata/annotations","/metadata/annotations/gavel.dev~1reviewed-by"]'
stop_server "$deploy_pid"

finish
