#!/usr/bin/env bash
# A /validate/ package without deny never allows silently: a package whose deny is
# misspelt (denny) gets the failure decision at request time, a warning at load and
# reload (once per content), and an error from gavel check.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

mkdir -p "$work/policies"
cat > "$work/policies/typo.rego" <<'EOF'
package kubernetes.typo

denny contains msg if {
	input.request.kind.kind == "Pod"
	msg := "no pods"
}
EOF
cat > "$work/policies/warnonly.rego" <<'EOF'
package kubernetes.warnonly

warn contains "pods are deprecated here" if input.request.kind.kind == "Pod"
EOF
cat > "$work/policies/good.rego" <<'EOF'
package kubernetes.good

deny contains "no pods" if input.request.kind.kind == "Pod"

violations := count(deny)
EOF
cat > "$work/policies/mutating.rego" <<'EOF'
package kubernetes.mutating

patch contains {"op": "add", "path": "/metadata/labels/seen", "value": "yes"} if input.request.kind.kind == "Pod"
EOF
review=$fx/reviews/pod-good.json

# ---- gavel check: the misspelling is an error at the rule, with its own code -------------------
"$gavel" check "$work/policies" > "$work/check.out" 2> "$work/check.err"
expect_eq "check: exit 1" "$?" 1
expect_eq "check: one error, at the misspelt rule" "$(grep -c 'gavel_rule_name_error' "$work/check.err")" 1
grep -qF "$work/policies/typo.rego:3:1: gavel_rule_name_error: rule denny looks like a misspelling of deny" "$work/check.err" &&
    pass "check: file:line:col, the code, the rule and the name it resembles" || { fail "check: message"; cat "$work/check.err"; }
"$gavel" check -f json "$work/policies" 2> "$work/check.json"
expect_eq "check --format json: the code" "$(json_get "$work/check.json" 'input.errors[0].code')" gavel_rule_name_error
expect_eq "check --format json: the row" "$(json_get "$work/check.json" 'input.errors[0].location.row')" 3
"$gavel" check --no-admission-rule-names "$work/policies" > /dev/null 2>&1
expect_eq "check --no-admission-rule-names: passes" "$?" 0

# ---- gavel serve: warnings at load ------------------------------------------------------------
start_server s --policies "$work/policies" --ca-dump "$work/ca.pem" || exit 1
base="https://localhost:$s_port"
c() { curl -sS --cacert "$work/ca.pem" "$@"; }
post() { c -o "$work/r.json" -H 'Content-Type: application/json' --data-binary @"$review" "$base$1"; }

misspelt() { grep '"msg":"a rule looks like a misspelt admission rule"' "$s_log"; }
warn_only() { grep '"msg":"a package warns but never denies' "$s_log"; }
expect_eq "load: one warning for the misspelt rule" "$(misspelt | wc -l | tr -d ' ')" 1
misspelt | grep -q '"package":"data.kubernetes.typo"' && misspelt | grep -q '"rule":"denny"' &&
    misspelt | grep -q '"resembles":"deny"' && misspelt | grep -q "\"location\":\"$work/policies/typo.rego:3:1\"" &&
    pass "load: the warning names the package, the rule, what it resembles and where" || { fail "load warning"; misspelt; }
expect_eq "load: one warning for the package that warns but never denies" "$(warn_only | grep -c '"package":"data.kubernetes.warnonly"')" 1
expect_eq "load: no warning for the deny package's violations helper, nor the mutating package" \
    "$(grep -c 'kubernetes.good\|kubernetes.mutating' "$s_log")" 0

# ---- at request time ----------------------------------------------------------------------------
post /validate/kubernetes/typo
expect_eq "typo: denied" "$(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" false
expect_eq "typo: status 500" "$(json_get "$work/r.json" input.response.status.code)" 500
expect_eq "typo: the message names the package and the misspelling" "$(json_get "$work/r.json" input.response.status.message)" \
    "policy evaluation failed: package data.kubernetes.typo defines no deny or violation rule (rule denny looks like a misspelling of deny)"
post /validate/kubernetes/mutating
expect_eq "a mutating package on /validate/: status 500" "$(json_get "$work/r.json" input.response.status.code)" 500
post /mutate/kubernetes/mutating
expect_eq "the mutating package on /mutate/: patches" "$(json_get "$work/r.json" input.response.patchType)" JSONPatch
post /validate/kubernetes/warnonly
expect_eq "warn only: allowed" "$(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" true
expect_eq "warn only: with its warning" "$(json_get "$work/r.json" 'input.response.warnings[0]')" "pods are deprecated here"
post /validate/kubernetes/good
expect_eq "deny: 403" "$(json_get "$work/r.json" input.response.status.code)" 403

# ---- reload: an unrelated change repeats no warning; fixing the typo makes deny work ------------
printf 'package kubernetes.other\n\ndeny contains "x" if false\n' > "$work/policies/other.rego"
for _ in $(seq 1 50); do
    post /validate/kubernetes/other
    [[ $(json_get "$work/r.json" 'json.marshal(input.response.allowed)') == true ]] && break
    sleep 0.1
done
expect_eq "reload of other content: the package is served" "$(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" true
expect_eq "reload of other content: the warning is not repeated" "$(misspelt | wc -l | tr -d ' ')" 1
sed -i 's/^denny /deny /' "$work/policies/typo.rego"
for _ in $(seq 1 50); do
    post /validate/kubernetes/typo
    [[ $(json_get "$work/r.json" input.response.status.code) == 403 ]] && break
    sleep 0.1
done
expect_eq "typo fixed: denied by the policy" "$(json_get "$work/r.json" input.response.status.message)" "no pods"
sed -i 's/^deny /denny /' "$work/policies/typo.rego"
for _ in $(seq 1 50); do
    [[ $(misspelt | wc -l | tr -d ' ') == 2 ]] && break
    sleep 0.1
done
expect_eq "typo back: warned again (new content)" "$(misspelt | wc -l | tr -d ' ')" 2
stop_server "$s_pid"

# ---- --fail-open: allowed, the reason as a warning ---------------------------------------------
start_server o --policies "$work/policies" --ca-dump "$work/ca-o.pem" --fail-open || exit 1
code=$(curl -sS --cacert "$work/ca-o.pem" -o "$work/r.json" -w '%{http_code}' --data-binary @"$review" \
    "https://localhost:$o_port/validate/kubernetes/typo")
expect_eq "--fail-open: allowed" "$(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" true
expect_eq "--fail-open: the reason as a warning" "$(json_get "$work/r.json" 'input.response.warnings[0]')" \
    "gavel: policy evaluation failed, allowed by --fail-open: package data.kubernetes.typo defines no deny or violation rule (rule denny looks like a misspelling of deny)"
stop_server "$o_pid"

finish
