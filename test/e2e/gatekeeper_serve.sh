#!/usr/bin/env bash
# gavel serve --gatekeeper on examples/gatekeeper: each case object of the
# example suites, posted as an AdmissionReview, gets the decision its suite
# expects (denials "[constraint] message", warnings, dryrun only counted);
# data.inventory from the REST API feeds namespaceSelector and the templates;
# a template change is hot-reloaded; verify, audit and webhook-config agree.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
ex=examples/gatekeeper

# review FILE [OPERATION]: the object in FILE as an AdmissionReview (an AdmissionReview stays as it is).
review() {
    if [[ $("$gavel" eval --format raw -i "$1" 'input.kind') == AdmissionReview ]]; then
        "$gavel" eval --format raw -i "$1" 'json.marshal(input)'
        return
    fi
    "$gavel" eval --format raw -i "$1" 'json.marshal({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "e2e", "operation": "'"${2:-CREATE}"'", "namespace": object.get(input.metadata, "namespace", ""),
        "name": input.metadata.name, "object": input,
        "kind": {"group": "", "version": "v1", "kind": input.kind},
        "resource": {"group": "", "version": "v1", "resource": "pods"}}})'
}
# decide FILE: "allowed" or the status message, then " | " and the warnings, joined by ";"
decide() {
    review "$1" > "$work/review.json"
    curl -sS --data-binary @"$work/review.json" "http://127.0.0.1:$gk_port/gatekeeper" -o "$work/r.json"
    json_get "$work/r.json" 'concat(" | ", [object.get(input.response, ["status", "message"], "allowed"), concat(";", object.get(input.response, "warnings", []))])'
}
metric() { curl -sS "http://127.0.0.1:$gk_diag_port/metrics" | grep "^gavel_gatekeeper_violations_total{enforcement_action=\"$1\"}" | cut -d' ' -f2; }

cp -r "$ex" "$work/policies"
start_server gk --gatekeeper "$work/policies" --insecure-http --reload-interval 100ms || exit 1

# required-annotations (deny). The namespace is unknown: memory-limits-prod (warn, namespaceSelector)
# cannot match and warns so, as Gatekeeper's autoreject does.
autoreject="unable to match constraints: error matching the requested object"
got=$(decide $ex/required-annotations/samples/pod-annotated.yaml)
expect_eq "annotated pod: allowed, the prod constraint cannot decide without the Namespace" \
    "${got%%:*}" "allowed | [memory-limits-prod] unable to match constraints"
expect_eq "bare pod: both annotations denied" "$(decide $ex/required-annotations/samples/pod-bare.yaml | cut -d'|' -f1)" \
    "[owner-and-cost-center] annotation example.com/cost-center is required
[owner-and-cost-center] annotation example.com/owner is required "
expect_eq "bad cost center" "$(decide $ex/required-annotations/samples/pod-bad-cost-center.yaml | cut -d'|' -f1)" \
    "[owner-and-cost-center] annotation example.com/cost-center=1234 does not match ^cc-[0-9]{4}\$ "
expect_eq "kube-* namespaces excluded" "$(decide $ex/required-annotations/samples/pod-kube-system.yaml | cut -d'|' -f1)" "allowed "
expect_eq "UPDATE review: cost center missing" "$(decide $ex/required-annotations/samples/review-update-bare.yaml)" \
    "[owner-and-cost-center] annotation example.com/cost-center is required | "

# The Namespace arrives in data.inventory through the REST API (as kube-mgmt would sync it).
"$gavel" eval --format raw -i $ex/container-limits/samples/namespace-prod.yaml 'json.marshal(input)' > "$work/ns.json"
status=$(curl -sS -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$work/ns.json" \
    "http://127.0.0.1:$gk_rest_port/v1/data/inventory/cluster/v1/Namespace/shop")
expect_eq "PUT the Namespace into data.inventory" "$status" 204
got=$(decide $ex/container-limits/samples/pod-limited.yaml)
expect_eq "limited pod in prod: no warning" "${got#*| }" ""
got=$(decide $ex/container-limits/samples/pod-unlimited.yaml)
expect_eq "unlimited pod in prod: two warnings, the team read from data.inventory" "${got#*| }" \
    "[memory-limits-prod] container setup has no memory limit (team checkout);[memory-limits-prod] container app asks for 1Gi of memory, more than 512Mi"
expect_eq "dryrun violations are counted, not answered" "$(metric dryrun)" 5
# 4 autoreject warnings (Pods posted before the Namespace was known), then 2.
expect_eq "warn violations are counted" "$(metric warn)" 6
grep -q '"msg":"dryrun violation".*"constraint_name":"memory-limits-everywhere"\|"constraint_name":"memory-limits-everywhere".*"msg":"dryrun violation"' "$gk_log" \
    && pass "dryrun violations are logged" || fail "dryrun violations are logged"

# DELETE with the object in oldObject; operations: [CREATE, UPDATE] keeps container-limits out.
"$gavel" eval --format raw -i $ex/required-annotations/samples/pod-bare.yaml 'json.marshal({"apiVersion": "admission.k8s.io/v1",
    "kind": "AdmissionReview", "request": {"uid": "d", "operation": "DELETE", "namespace": "shop", "name": "bare",
    "kind": {"group": "", "version": "v1", "kind": "Pod"}, "oldObject": input}})' > "$work/delete.json"
curl -sS --data-binary @"$work/delete.json" "http://127.0.0.1:$gk_port/gatekeeper" -o "$work/r.json"
expect_eq "DELETE: the oldObject is reviewed, templates limited to CREATE/UPDATE are not" \
    "$(json_get "$work/r.json" 'sprintf("%v %v", [input.response.allowed, object.get(input.response, "warnings", "none")])')" "false none"

# POST / answers from the constraints too (no --policies).
review $ex/required-annotations/samples/pod-annotated.yaml > "$work/review.json"
expect_eq "POST / without --policies" "$(curl -sS --data-binary @"$work/review.json" "http://127.0.0.1:$gk_port/" | grep -c '"allowed":true')" 1

# Hot reload: a constraint change takes effect; a broken file keeps the last good set.
sed -i 's/example.com\/owner$/example.com\/team/' "$work/policies/required-annotations/constraint.yaml"
for _ in $(seq 1 100); do
    decide $ex/required-annotations/samples/pod-bare.yaml | grep -q "example.com/team is required" && break
    sleep 0.1
done
expect_eq "constraint change reloaded" "$(decide $ex/required-annotations/samples/pod-bare.yaml | grep -c 'example.com/team is required')" 1
printf 'apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: NoSuchKind\nmetadata: {name: x}\n' > "$work/policies/broken.yaml"
for _ in $(seq 1 50); do grep -q "Gatekeeper reload failed" "$gk_log" && break; sleep 0.1; done
grep -q 'Gatekeeper reload failed.*broken.yaml\|broken.yaml.*Gatekeeper reload failed' "$gk_log" && pass "broken file logged with its name" \
    || fail "broken file logged with its name"
expect_eq "last good set keeps serving" "$(decide $ex/required-annotations/samples/pod-bare.yaml | grep -c 'example.com/team is required')" 1
stop_server "$gk_pid"

# gavel verify on the same examples; a failing case fails with gator's exit status.
"$gavel" verify $ex/... > "$work/verify.txt"
expect_eq "verify examples passes" "$?:$(tail -2 "$work/verify.txt" | head -1)" "0:PASS"
cp -r "$ex/required-annotations" "$work/failing"
sed -i 's/violations: 2$/violations: 3/' "$work/failing/suite.yaml"
"$gavel" verify "$work/failing" > "$work/verify.txt"
expect_eq "verify fails a wrong count (exit 1)" "$?" 1
grep -q "got 2 violations but want exactly 3" "$work/verify.txt" && pass "verify names the count" || fail "verify names the count"
"$gavel" verify --format json --run '//bare' $ex/... > "$work/verify.json"
expect_eq "verify --format json --run" "$(json_get "$work/verify.json" 'count([c | some c in input; c.status == "PASS"])')" 1

# audit and webhook-config
"$gavel" audit --gatekeeper $ex --format json $ex/container-limits/samples > "$work/audit.json"
expect_eq "audit: totals per constraint" \
    "$(json_get "$work/audit.json" 'concat(",", [sprintf("%v=%v", [c.name, c.totalViolations]) | some c in input])')" \
    "memory-limits-everywhere=1,memory-limits-prod=2,owner-and-cost-center=4"
"$gavel" webhook-config --gatekeeper $ex --service gavel/gavel > "$work/hook.yaml"
# One rule per group/version, resources from the kinds table (as for policies).
grep -q 'path: "/gatekeeper"' "$work/hook.yaml" && grep -q 'resources: \["deployments"\]' "$work/hook.yaml" &&
    grep -q 'resources: \["pods"\]' "$work/hook.yaml" && grep -q 'kubernetes.io/metadata.name' "$work/hook.yaml" \
    && pass "webhook-config rules from match.kinds" || fail "webhook-config rules from match.kinds"

finish
