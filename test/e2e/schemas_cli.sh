#!/usr/bin/env bash
# -s/--schema for gavel check, eval and test, as OPA's flag: a file types input
# everywhere (a misspelt key is OPA's undefined ref), a directory's a/b.json is
# schema.a.b for METADATA schemas: annotations; unreadable or invalid schemas.
source "$(dirname "$0")/lib.sh"
out=/tmp/gavel_e2e_out.$$ err=/tmp/gavel_e2e_err.$$
at_exit 'rm -f "$out" "$err"'
schema=examples/schemas/admission-review-v1.json
fixtures=test/e2e/fixtures/schemas

expect() {  # name, expected status, command...
    local name=$1 want=$2; shift 2
    "$@" > "$out" 2> "$err"
    local got=$?
    if [[ $got -ne $want ]]; then
        echo "FAIL $name: exit $got, want $want"; cat "$err"; failures=$((failures + 1))
    else
        echo "ok   $name"
    fi
}
same() {  # name, file, expected text
    if diff -u <(printf '%s\n' "$3") "$2"; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}
has() {  # name, file, text
    if grep -qF -- "$3" "$2"; then echo "ok   $1"; else echo "FAIL $1: no '$3' in"; cat "$2"; failures=$((failures + 1)); fi
}

typo='examples/schema-check-v1/host-namespaces.rego:16:2: rego_type_error: undefined ref: input.request.kind.knd
	input.request.kind.knd
	                   ^
	                   have: "knd"
	                   want (one of): ["group" "kind" "version"]
	input.request.kind.knd == "Pod"
	^'

# ---- check ----
expect "check without -s: the typo passes" 0 "$gavel" check examples/schema-check-v1
expect "check -s FILE: the typo is an error" 1 "$gavel" check -s "$schema" examples/schema-check-v1
same "check -s FILE: exact output" "$err" "$typo"
expect "check --schema FILE, JSON" 1 "$gavel" check --schema "$schema" -f json examples/schema-check-v1
has "check -s FILE, JSON: the error's code" "$err" '"code": "rego_type_error"'
has "check -s FILE, JSON: the error's message" "$err" '"message": "undefined ref: input.request.kind.knd'
for d in admission-v1 mutating-v1 ingress-conflicts-v1; do
    expect "check -s FILE: examples/$d has no false positive" 0 "$gavel" check -s "$schema" "examples/$d"
done
expect "check -s DIR: annotations name the schemas" 1 "$gavel" check -s "$fixtures/dir" "$fixtures/annotated"
# The package's input schema (dir/input.json) and, for two rules, dir/k8s/admission-review.json as schema.k8s["admission-review"].
same "check -s DIR: misspelt keys against the schemas in scope" "$err" "2 errors occurred:
$fixtures/annotated/policy.rego:18:9: rego_type_error: undefined ref: input.operaton
	input.operaton
	      ^
	      have: \"operaton\"
	      want (one of): [\"operation\" \"user\"]
	typo if input.operaton == \"read\"
	        ^
$fixtures/annotated/policy.rego:23:14: rego_type_error: undefined ref: input.request.knd
	input.request.knd
	              ^
	              have: \"knd\"
	              want (one of): [\"dryRun\" \"kind\" \"name\" \"namespace\" \"object\" \"oldObject\" \"operation\" \"options\" \"requestKind\" \"requestResource\" \"requestSubResource\" \"resource\" \"subResource\" \"uid\" \"userInfo\"]
	kind_typo if input.request.knd == \"Pod\"
	             ^"
expect "check without -s: schema refs in annotations are ignored" 0 "$gavel" check "$fixtures/annotated"
expect "check -s with a missing path" 1 "$gavel" check -s /nonexistent/schema.json examples/schema-check-v1
same "check -s with a missing path: OPA's loader error" "$err" \
    "1 error occurred during loading: stat /nonexistent/schema.json: no such file or directory"
expect "check -s with an invalid schema" 1 "$gavel" check -s "$fixtures/broken.json" examples/admission-v1
same "check -s with an invalid schema: OPA's message, no location" "$err" \
    "rego_type_error: unable to compile the schema: has a primitive type that is NOT VALID -- given: /strng/ Expected valid values are:[array boolean integer number null object string]"

# ---- eval ----
expect "eval without -s: the typo admits the pod" 0 "$gavel" eval -d examples/schema-check-v1 \
    -i examples/schema-check-v1/pod.json 'data.kubernetes.host_namespaces.deny' -f values
same "eval without -s: deny is empty" "$out" '[
  []
]'
expect "eval -s FILE: the typo is an error" 2 "$gavel" eval -s "$schema" -d examples/schema-check-v1 \
    -i examples/schema-check-v1/pod.json 'data.kubernetes.host_namespaces.deny'
has "eval -s FILE: the error in the result" "$out" '"message": "undefined ref: input.request.kind.knd'
expect "eval -s FILE: the query is checked too" 2 "$gavel" eval -s "$schema" 'input.request.objct'
has "eval -s FILE: the query's error" "$out" '"message": "undefined ref: input.request.objct'
expect "eval -s FILE: a correct policy evaluates" 0 "$gavel" eval -s "$schema" -d examples/admission-v1 \
    -i examples/admission-v1/pod.json 'data.kubernetes.admission.deny' -f values
has "eval -s FILE: its result" "$out" "image 'mysql' comes from untrusted registry"
expect "eval -s DIR: annotations" 2 "$gavel" eval -s "$fixtures/dir" -d "$fixtures/annotated" 'data.authz.allow'
has "eval -s DIR: the error" "$out" 'undefined ref: input.operaton'
expect "eval -s with a missing path: exit 2" 2 "$gavel" eval -s /nonexistent 'true'
same "eval -s with a missing path: the message" "$err" \
    "1 error occurred during loading: stat /nonexistent: no such file or directory"

# ---- test ----
expect "test without -s: the example's tests pass" 0 "$gavel" test examples/schema-check-v1
expect "test -s FILE: the typo stops the tests" 1 "$gavel" test -s "$schema" examples/schema-check-v1
has "test -s FILE: the error" "$err" 'host-namespaces.rego:16:2: rego_type_error: undefined ref: input.request.kind.knd'
expect "test -s FILE: a correct example passes" 0 "$gavel" test -s "$schema" examples/admission-v1
expect "test -s DIR: annotations" 1 "$gavel" test -s "$fixtures/dir" "$fixtures/annotated"
has "test -s DIR: the error" "$err" 'undefined ref: input.operaton'
expect "test -s with a missing path" 1 "$gavel" test -s /nonexistent examples/admission-v1
same "test -s with a missing path: the message" "$err" \
    "1 error occurred during loading: stat /nonexistent: no such file or directory"

finish
