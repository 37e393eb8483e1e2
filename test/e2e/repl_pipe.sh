#!/usr/bin/env bash
# gavel repl with statements piped through stdin: only results are printed
# (no prompt, no banner), exactly as the REPL shows them.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/repl
out=$(mktemp)
at_exit 'rm -f "$out" "$out.diff"'

# check NAME EXPECTED-STDOUT STDIN-TEXT ARGS...: exit status 0 and stdout exactly.
check() {
    local name=$1 want=$2 stdin=$3; shift 3
    printf '%s\n' "$stdin" | "$gavel" repl "$@" > "$out" 2>&1
    local status=$?
    if [[ $status -ne 0 ]]; then echo "FAIL $name: exit $status"; cat "$out"; failures=$((failures + 1)); return; fi
    if ! diff -u <(printf '%s\n' "$want") "$out" > "$out.diff"; then
        echo "FAIL $name: output differs"; cat "$out.diff"; failures=$((failures + 1)); return
    fi
    echo "ok   $name"
}

check walk-through '{
  "group": "",
  "kind": "Pod",
  "version": "v1"
}
"Pod"
{
  "image": "nginx",
  "name": "nginx-frontend"
}
"nginx"
Rule '"'i'"' defined in package repl. Type '"'show'"' to see rules.
{
  "image": "nginx",
  "name": "nginx-frontend"
}
+---+-------------------------------------------+
| j |  input.request.object.spec.containers[j]  |
+---+-------------------------------------------+
| 0 | {"image":"nginx","name":"nginx-frontend"} |
| 1 | {"image":"mysql","name":"mysql-backend"}  |
+---+-------------------------------------------+
+-----------------------------------------------+
| input.request.object.spec.containers[_].image |
+-----------------------------------------------+
| "nginx"                                       |
| "mysql"                                       |
+-----------------------------------------------+
true
false' 'input.request.kind
input.request.kind.kind
input.request.object.spec.containers[0]
input.request.object.spec.containers[0].image
i := 0
input.request.object.spec.containers[i]
input.request.object.spec.containers[j]
input.request.object.spec.containers[_].image
input.request.kind.kind == "Pod"
input.request.kind.kind == "Deployment"' -i $fx/admission_review.json

check rules-and-assignments "Rule 'images' defined in package repl. Type 'show' to see rules.
[
  \"mysql\",
  \"nginx\"
]
+---------+-----------+
|    x    | images[x] |
+---------+-----------+
| \"mysql\" | \"mysql\"   |
+---------+-----------+
Rule 'pi' defined in package repl. Type 'show' to see rules.
true
Rule 'pi' re-defined in package repl. Type 'show' to see rules.
3
package repl

images contains img if {
	img := input.request.object.spec.containers[_].image
}

pi := 3
+---+-------+
| x |   y   |
+---+-------+
| 2 | [2,4] |
| 3 | [3,6] |
+---+-------+
1 error occurred: 1:1: rego_unsafe_var_error: var pi is unsafe" 'images contains img if {
	img := input.request.object.spec.containers[_].image
}
images
images[x]; startswith(x, "m")
pi := 3.14
pi > 3
pi := 3
pi
show
x := [1, 2, 3][_]; x > 1; y := [x, x * 2]
unset pi
pi' -i $fx/admission_review.json

check errors "1 error occurred: 1:1: rego_unsafe_var_error: var nothing is unsafe
1 error occurred: 1:3: rego_parse_error: unexpected eof token
	1 +
	  ^
Rule 'c' defined in package repl. Type 'show' to see rules.
1 error occurred: repl:repl:2: eval_conflict_error: complete rules must not produce multiple outputs
warning: no matching rules in current module
undefined
1 error occurred: 1:5: rego_parse_error: unexpected eof token
	p if
	    ^" 'nothing
1 +
c := input.request.object.spec.containers[_].image
c
unset zz
input.missing
p if' -i $fx/admission_review.json

check policies-and-packages '+---------------------------+-----------------------------------+
|             m             | data.kubernetes.admission.deny[m] |
+---------------------------+-----------------------------------+
| "image '"'mysql'"' comes from | "image '"'mysql'"' comes from         |
| untrusted registry"       | untrusted registry"               |
| "image '"'nginx'"' comes from | "image '"'nginx'"' comes from         |
| untrusted registry"       | untrusted registry"               |
+---------------------------+-----------------------------------+
[
  "hooli.com",
  "registry.internal"
]
[
  "image '"'mysql'"' comes from untrusted registry",
  "image '"'nginx'"' comes from untrusted registry"
]
"myapp"
package kubernetes.admission

import input.request.object as obj' 'data.kubernetes.admission.deny[m]
data.registries.trusted
package kubernetes.admission
deny
import input.request.object as obj
obj.metadata.name
show' -d $fx/policies -i $fx/admission_review.json

check commands '{
  "result": [
    {
      "expressions": [
        {
          "value": "Pod",
          "text": "input.request.kind.kind",
          "location": {
            "row": 1,
            "col": 1
          }
        }
      ]
    }
  ]
}
{}
"Deployment"
Rule '"'p'"' defined in package repl. Type '"'show'"' to see rules.
package repl' 'json
input.request.kind.kind
input.missing
pretty
input '"$fx"'/other_input.yaml
input.request.kind.kind
p contains x if x := input.request.object.spec.containers[_].image
unset-package
show
exit
input.request.kind.kind' -i $fx/admission_review.json

# Statements may span lines while a bracket is open; comments and blank lines are nothing.
check multi-line '2
[
  "nginx-frontend: untrusted",
  "mysql-backend: untrusted"
]' '# a comment
{"a": [1,
  2]}["a"][1]

[msg |
  c := input.request.object.spec.containers[_]
  msg := sprintf("%v: untrusted", [c.name])
]' -i $fx/admission_review.json

check v0-rules "Rule 'deny' defined in package repl. Type 'show' to see rules.
[
  \"mysql-backend: untrusted\",
  \"nginx-frontend: untrusted\"
]" 'deny[msg] {
  c := input.request.object.spec.containers[_]
  msg := sprintf("%v: untrusted", [c.name])
}
deny' --v0-compatible -i $fx/admission_review.json

# trace: each step of the next queries with its location (padded as OPA pads it: the
# widest location plus 4); a failed comparison shows its operands.
printf '%s\n' trace 'x := input.request.object.spec.containers[_]; x.image == "mysql"' |
    "$gavel" repl -i $fx/admission_review.json > "$out" 2>&1
if [[ "$(head -n 1 "$out")" == 'query:1     Enter x := input.request.object.spec.containers[_]; x.image == "mysql"' ]] &&
   grep -qxF 'query:1     | Eval x := input.request.object.spec.containers[_]' "$out" &&
   grep -qxF 'query:1     | Fail x.image == "mysql"  # x.image = "nginx"' "$out" &&
   grep -qxF 'query:1     | Redo x := input.request.object.spec.containers[_]' "$out" &&
   grep -qxF '| {"image":"mysql","name":"mysql-backend"} |' "$out"; then
    echo "ok   trace"
else
    echo "FAIL trace"; cat "$out"; failures=$((failures + 1))
fi

# gavel run is the REPL too (as opa run without --server); positional paths load like -d.
printf 'data.registries.trusted[0]\n' | "$gavel" run $fx/policies > "$out" 2>&1
if [[ "$(cat "$out")" == '"hooli.com"' ]]; then echo "ok   run"; else echo "FAIL run"; cat "$out"; failures=$((failures + 1)); fi

# OPA's convention: data loaded at repl.input is the input when -i gives none.
printf 'input.request.kind.kind\n' | "$gavel" run repl.input:$fx/admission_review.json > "$out" 2>&1
if [[ "$(cat "$out")" == '"Pod"' ]]; then echo "ok   repl.input"; else echo "FAIL repl.input"; cat "$out"; failures=$((failures + 1)); fi

# A start-up file with errors stops the REPL with status 1.
if printf 'true\n' | "$gavel" repl -d $fx/does-not-exist > "$out" 2>&1; then
    echo "FAIL missing-file: exit 0"; failures=$((failures + 1))
else
    echo "ok   missing-file"
fi

finish
