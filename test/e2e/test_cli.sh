#!/usr/bin/env bash
# gavel test: exact output and exit status on fixture trees (test/e2e/fixtures/test)
# and on the examples. Durations vary from run to run, so "(1.2ms)" becomes
# "(D)" and JSON "duration": N becomes 0 before comparing.
source "$(dirname "$0")/lib.sh"
out=/tmp/gavel_e2e_test_out.$$
err=/tmp/gavel_e2e_test_err.$$
tmp=$(mktemp -d)
at_exit 'rm -rf "$tmp" "$out" "$err" "$out.diff"'
fx=test/e2e/fixtures/test

expected() { if [[ -n $1 ]]; then printf '%s\n' "$1"; fi; }
normalize() { sed -E -e 's/\(([0-9]+h)?([0-9]+m)?[0-9.]+(ns|µs|ms|s)\)/(D)/' -e 's/"duration": [0-9]+/"duration": 0/'; }

# check NAME STATUS EXPECTED-STDOUT CMD...: exit status and (normalized) stdout exactly.
check() {
    local name=$1 want_status=$2 want_out=$3; shift 3
    "$@" > "$out" 2> "$err"
    local got=$?
    if [[ $got -ne $want_status ]]; then fail "$name: exit $got, want $want_status"; cat "$out" "$err"; return; fi
    if ! diff -u <(expected "$want_out") <(normalize < "$out") > "$out.diff"; then
        fail "$name: output differs"; cat "$out.diff"; return
    fi
    echo "ok   $name"
}

# check_err NAME STATUS EXPECTED-STDERR CMD...: exit status, empty stdout and stderr exactly.
check_err() {
    local name=$1 want_status=$2 want_err=$3; shift 3
    "$@" > "$out" 2> "$err"
    local got=$?
    if [[ $got -ne $want_status ]]; then fail "$name: exit $got, want $want_status"; cat "$out" "$err"; return; fi
    if [[ -s $out ]]; then fail "$name: unexpected stdout"; cat "$out"; return; fi
    if ! diff -u <(expected "$want_err") "$err" > "$out.diff"; then fail "$name: stderr differs"; cat "$out.diff"; return; fi
    echo "ok   $name"
}

# ---- passing, skipped, multi-value, print output, data files and mocks ----------------

check "passing tests: only the skipped one is listed; skipped exits 2, as OPA" 2 "$fx/pass/authz_test.rego:
data.authz_test.todo_test_admin: SKIPPED
--------------------------------------------------------------------------------
PASS: 7/8
SKIPPED: 1/8" "$gavel" test $fx/pass

pass_verbose="$fx/pass/authz_test.rego:
data.authz_test.test_post_allowed: PASS (D)
data.authz_test.test_get_anonymous_denied: PASS (D)
data.authz_test.test_get_user_allowed: PASS (D)

  checking bob

data.authz_test.test_methods: PASS (D)
  DELETE: PASS
  PUT: PASS
data.authz_test.todo_test_admin: SKIPPED

$fx/pass/roles_test.rego:
data.roles.test_admins_from_data: PASS (D)
data.roles.test_mocked_data: PASS (D)
--------------------------------------------------------------------------------
PASS: 7/8
SKIPPED: 1/8"
check "-v lists every test, its cases and its print output" 2 "$pass_verbose" "$gavel" test -v $fx/pass
check "-p 4: the same output, in the same order" 2 "$pass_verbose" "$gavel" test -v -p 4 $fx/pass
check "-p 1, --exit-zero-on-skipped" 0 "$pass_verbose" "$gavel" test -v --parallel 1 --exit-zero-on-skipped $fx/pass
"$gavel" test -z $fx/fail $fx/pass > /dev/null 2>&1
if [[ $? -eq 2 ]]; then echo "ok   -z: failures still exit 2"; else fail "-z: failures still exit 2"; fi
check_err "--target wasm is not supported" 1 "unsupported --target wasm: gavel evaluates Rego directly (rego)" \
    "$gavel" test -t wasm $fx/pass

# ---- failing tests: where they failed, and with --var-values why ----------------------

check "failing tests name the expression that failed" 2 "$fx/fail/policy_test.rego:
data.limits_test.test_large_is_allowed: FAIL (D)
  $fx/fail/policy_test.rego:10: limits.allowed with input as {\"replicas\": n}

  trying 5

data.limits_test.test_max_is_four: FAIL (D)
  $fx/fail/policy_test.rego:13: limits.max_replicas == 4
data.limits_test.test_sizes: FAIL (D)
  $fx/fail/policy_test.rego:15
  4: FAIL
--------------------------------------------------------------------------------
PASS: 3/6
FAIL: 3/6" "$gavel" test $fx/fail

check "--var-values shows the operands' and variables' values" 2 "$fx/fail/policy_test.rego:
data.limits_test.test_large_is_allowed: FAIL (D)
  $fx/fail/policy_test.rego:10: limits.allowed with input as {\"replicas\": n}
    limits.allowed = false
    n = 5

  trying 5

data.limits_test.test_max_is_four: FAIL (D)
  $fx/fail/policy_test.rego:13: limits.max_replicas == 4
    limits.max_replicas = 3
data.limits_test.test_sizes: FAIL (D)
  $fx/fail/policy_test.rego:15
  4: FAIL
--------------------------------------------------------------------------------
PASS: 3/6
FAIL: 3/6" "$gavel" test --var-values $fx/fail

check "--explain fails is --var-values" 2 "$(normalize < "$out")" "$gavel" test --explain fails $fx/fail

# The trace's layout is the REPL's trace printer's (tested there); here: it is there, for the failing test.
"$gavel" test -v --explain full --run four $fx/fail > "$out" 2> "$err"
if [[ $? -eq 2 ]] && grep -q "^data.limits_test.test_max_is_four: FAIL" "$out" &&
   grep -qE "^  $fx/fail/policy_test.rego:13 +(\| )+Eval limits.max_replicas == 4$" "$out" &&
   grep -qE "^  $fx/fail/policy.rego:3 +(\| )+Exit max_replicas := 3$" "$out" &&
   grep -qE "^  $fx/fail/policy_test.rego:13 +(\| )+Fail limits.max_replicas == 4  # limits.max_replicas = 3$" "$out"; then
    echo "ok   -v --explain full adds the evaluation trace"
else fail "-v --explain full adds the evaluation trace"; cat "$out" "$err"; fi
"$gavel" test --explain full --run four $fx/fail > "$out" 2> "$err"
grep -q ' Eval limits.max_replicas == 4' "$out" && fail "--explain without -v: a trace (OPA prints none)" || echo "ok   --explain without -v prints no trace, as OPA"

# -v alone: the failing test's trace, its notes and failures with the Enter steps leading there (OPA's default).
"$gavel" test -v --run four $fx/fail > "$out" 2> "$err"
if grep -qE "^  query:1 +Enter data.limits_test.test_max_is_four$" "$out" &&
   grep -qE "^  $fx/fail/policy_test.rego:13 +\| Enter test_max_is_four if limits.max_replicas == 4$" "$out" &&
   grep -qE "^  $fx/fail/policy_test.rego:13 +\| \| Fail limits.max_replicas == 4  # limits.max_replicas = 3$" "$out" &&
   ! grep -q ' Eval ' "$out"; then
    echo "ok   -v shows the notes and failures of a failing test's trace"
else fail "-v trace"; cat "$out" "$err"; fi
check_err "a bad --explain" 1 "invalid --explain everything: want fails, full, notes or debug" "$gavel" test --explain everything $fx/fail

check "-v: FAILURES with the failing tests' traces (notes and failures), then SUMMARY of every test" 2 "FAILURES
--------------------------------------------------------------------------------
data.limits_test.test_large_is_allowed: FAIL (D)
  $fx/fail/policy_test.rego:10: limits.allowed with input as {\"replicas\": n}

  query:1                                             Enter data.limits_test.test_large_is_allowed
  $fx/fail/policy_test.rego:7      | Enter test_large_is_allowed if {
  $fx/fail/policy.rego:7           | | Enter allowed if input.replicas <= max_replicas
  $fx/fail/policy.rego:7           | | | Fail input.replicas <= max_replicas  # input.replicas = 5; max_replicas = 3
  $fx/fail/policy_test.rego:10     | | Fail limits.allowed with input as {\"replicas\": n}  # limits.allowed = false
  query:1                                             | Fail data.limits_test.test_large_is_allowed  # data.limits_test.test_large_is_allowed = undefined

data.limits_test.test_max_is_four: FAIL (D)
  $fx/fail/policy_test.rego:13: limits.max_replicas == 4

  query:1                                             Enter data.limits_test.test_max_is_four
  $fx/fail/policy_test.rego:13     | Enter test_max_is_four if limits.max_replicas == 4
  $fx/fail/policy_test.rego:13     | | Fail limits.max_replicas == 4  # limits.max_replicas = 3
  query:1                                             | Fail data.limits_test.test_max_is_four  # data.limits_test.test_max_is_four = undefined

data.limits_test.test_sizes: FAIL (D)
  $fx/fail/policy_test.rego:15
  4: FAIL

  query:1                                             Enter data.limits_test.test_sizes
  $fx/fail/policy_test.rego:15     | Enter test_sizes[size] := ok if {
  $fx/fail/policy.rego:7           | | Enter allowed if input.replicas <= max_replicas
  $fx/fail/policy.rego:7           | | | Fail input.replicas <= max_replicas  # input.replicas = 4; max_replicas = 3

SUMMARY
--------------------------------------------------------------------------------
$fx/fail/policy_test.rego:
data.limits_test.test_small_is_allowed: PASS (D)
data.limits_test.test_large_is_allowed: FAIL (D)

  trying 5

data.limits_test.test_max_is_four: FAIL (D)
data.limits_test.test_sizes: FAIL (D)
  1: PASS
  3: PASS
  4: FAIL
--------------------------------------------------------------------------------
PASS: 3/6
FAIL: 3/6" "$gavel" test -v $fx/fail

# ---- what a test's head makes of it, as opa test (tester.runTest, by Head.DocKind) ----

check "test shapes: contains and non-true values fail, partial objects report (nested) cases" 2 "$fx/shapes/shapes_test.rego:
data.shapes.test_contains: FAIL (D)
  $fx/shapes/shapes_test.rego:10: the test's value is a set, not true
data.shapes.test_values: FAIL (D)
  $fx/shapes/shapes_test.rego:15
  f: FAIL
data.shapes.test_nested: FAIL (D)
  $fx/shapes/shapes_test.rego:22: [a, b] != [\"q\", 2]
  q: FAIL
    2: FAIL
data.shapes.test_object: FAIL (D)
  $fx/shapes/shapes_test.rego:25: the test's value is an object, not true
--------------------------------------------------------------------------------
PASS: 7/11
FAIL: 4/11" "$gavel" test $fx/shapes

check "test shapes -v: every case, indented by depth" 2 "FAILURES
--------------------------------------------------------------------------------
data.shapes.test_contains: FAIL (D)
  $fx/shapes/shapes_test.rego:10: the test's value is a set, not true

data.shapes.test_values: FAIL (D)
  $fx/shapes/shapes_test.rego:15
  f: FAIL

data.shapes.test_nested: FAIL (D)
  $fx/shapes/shapes_test.rego:22: [a, b] != [\"q\", 2]
  q: FAIL
    2: FAIL

  query:1                                               Enter data.shapes.test_nested
  $fx/shapes/shapes_test.rego:19     | Enter test_nested[a][b] if {
  $fx/shapes/shapes_test.rego:22     | | Fail [a, b] != [\"q\", 2]  # [a, b] = [\"q\",2]

data.shapes.test_object: FAIL (D)
  $fx/shapes/shapes_test.rego:25: the test's value is an object, not true

SUMMARY
--------------------------------------------------------------------------------
$fx/shapes/shapes_test.rego:
data.shapes.test_true: PASS (D)
data.shapes.test_contains: FAIL (D)
data.shapes.test_cases: PASS (D)
  x: PASS
  y: PASS
data.shapes.test_values: FAIL (D)
  f: FAIL
  t: PASS
data.shapes.test_nested: FAIL (D)
  p: PASS
    1: PASS
    2: PASS
  q: FAIL
    1: PASS
    2: FAIL
data.shapes.test_object: FAIL (D)
--------------------------------------------------------------------------------
PASS: 7/11
FAIL: 4/11" "$gavel" test -v $fx/shapes

check "test shapes --format json: a set test has no sub_results; nested ones nest" 2 '[
  {
    "location": {
      "file": "test/e2e/fixtures/test/shapes/shapes_test.rego",
      "row": 10,
      "col": 1
    },
    "package": "data.shapes",
    "name": "test_contains",
    "fail": true,
    "duration": 0
  },
  {
    "location": {
      "file": "test/e2e/fixtures/test/shapes/shapes_test.rego",
      "row": 19,
      "col": 1
    },
    "package": "data.shapes",
    "name": "test_nested",
    "fail": true,
    "duration": 0,
    "failed_at": {
      "location": {
        "file": "test/e2e/fixtures/test/shapes/shapes_test.rego",
        "row": 22,
        "col": 2
      },
      "text": "[a, b] != [\"q\", 2]"
    },
    "sub_results": {
      "p": {
        "name": "p",
        "sub_results": {
          "1": {
            "name": "1"
          },
          "2": {
            "name": "2"
          }
        }
      },
      "q": {
        "name": "q",
        "fail": true,
        "sub_results": {
          "1": {
            "name": "1"
          },
          "2": {
            "name": "2",
            "fail": true
          }
        }
      }
    }
  }
]' "$gavel" test --format json --run 'contains|nested' $fx/shapes

# ---- errors: evaluation errors (exit 2), parse errors (exit 1), timeouts ----------------

check "an evaluation error is an ERROR result" 2 "$fx/error/conflict.rego:
data.conflict.test_conflict: ERROR (D)
  $fx/error/conflict.rego:4: eval_conflict_error: complete rules must not produce multiple outputs
--------------------------------------------------------------------------------
PASS: 1/2
ERROR: 1/2" "$gavel" test $fx/error

check_err "a parse error stops the run with file:line:col" 1 "1 error occurred: $fx/parse_error/bad.rego:5:1: rego_parse_error: unexpected } token: expected \",\" or \"]\"
	}
	^" "$gavel" test $fx/parse_error

check_err "a v0 policy without --v0-compatible names the flag" 1 "3 errors occurred:
$fx/v0/old_test.rego:3:1: rego_parse_error: \`if\` keyword is required before rule body (this is pre-1.0 Rego: add \`if\` (and \`contains\` for partial sets), or pass --v0-compatible)
	deny[msg] {
	^
$fx/v0/old_test.rego:3:1: rego_parse_error: \`contains\` keyword is required for partial set rules
	deny[msg] {
	^
$fx/v0/old_test.rego:8:1: rego_parse_error: \`if\` keyword is required before rule body (this is pre-1.0 Rego: add \`if\` (and \`contains\` for partial sets), or pass --v0-compatible)
	test_pod_denied {
	^" "$gavel" test $fx/v0
check "--v0-compatible" 0 "PASS: 1/1" "$gavel" test --v0-compatible $fx/v0
check "a second definition of a test is a test of its own (test_a#01)" 2 "$fx/duplicate/dup_test.rego:
data.dup.test_a#01: FAIL (D)
  $fx/duplicate/dup_test.rego:7: 1 == 2
--------------------------------------------------------------------------------
PASS: 2/3
FAIL: 1/3" "$gavel" test $fx/duplicate
check "--run selects a numbered test by its name" 2 "$fx/duplicate/dup_test.rego:
data.dup.test_a#01: FAIL (D)
  $fx/duplicate/dup_test.rego:7: 1 == 2
--------------------------------------------------------------------------------
FAIL: 1/1" "$gavel" test --run 'test_a#01' $fx/duplicate

check "--timeout cancels a slow test, the others still run" 2 "$fx/timeout/slow_test.rego:
data.slow.test_slow: ERROR (D)
  eval_cancel_error: context deadline exceeded
--------------------------------------------------------------------------------
PASS: 1/2
ERROR: 1/2" "$gavel" test --timeout 50ms $fx/timeout
check_err "a bad --timeout" 1 "invalid --timeout 5parsecs: want a duration such as 5s or 100ms" "$gavel" test --timeout 5parsecs $fx/pass

# ---- selecting tests -----------------------------------------------------------------

check "--run matches data.pkg.test_name" 0 "$fx/pass/authz_test.rego:
data.authz_test.test_get_anonymous_denied: PASS (D)
data.authz_test.test_get_user_allowed: PASS (D)

  checking bob

--------------------------------------------------------------------------------
PASS: 2/2" "$gavel" test -v --run 'authz_test\.test_get' $fx/pass
check "--run that matches nothing: no output" 0 "" "$gavel" test --run nothing_matches $fx/pass
check_err "--fail-on-empty" 1 "no test cases found" "$gavel" test --fail-on-empty --run nothing_matches $fx/pass
check_err "--run with a bad pattern" 1 "1 error occurred: --run: invalid regular expression: missing ): (" \
    "$gavel" test --run '(' $fx/pass
check "--ignore leaves files out by name" 2 "$fx/pass/authz_test.rego:
data.authz_test.todo_test_admin: SKIPPED
--------------------------------------------------------------------------------
PASS: 5/6
SKIPPED: 1/6" "$gavel" test --ignore 'roles_*' $fx/pass
check "--ignore keeps data files where they belong" 0 "PASS: 2/2" "$gavel" test --ignore 'authz*' $fx/pass
check "--count runs everything again" 2 "$fx/pass/authz_test.rego:
data.authz_test.todo_test_admin: SKIPPED
data.authz_test.todo_test_admin: SKIPPED
--------------------------------------------------------------------------------
PASS: 14/16
SKIPPED: 2/16" "$gavel" test --count 2 $fx/pass

# ---- JSON ------------------------------------------------------------------------------

check "--format json: OPA's result fields" 2 '[
  {
    "location": {
      "file": "test/e2e/fixtures/test/error/conflict.rego",
      "row": 6,
      "col": 1
    },
    "package": "data.conflict",
    "name": "test_conflict",
    "error": {
      "code": "eval_conflict_error",
      "message": "complete rules must not produce multiple outputs",
      "location": {
        "file": "test/e2e/fixtures/test/error/conflict.rego",
        "row": 4,
        "col": 1
      }
    },
    "duration": 0
  },
  {
    "location": {
      "file": "test/e2e/fixtures/test/error/conflict.rego",
      "row": 8,
      "col": 1
    },
    "package": "data.conflict",
    "name": "test_fine",
    "duration": 0
  }
]' "$gavel" test --format json $fx/error

check "--format json: fail, skip, output (base64), failed_at and sub_results" 2 '[
  {
    "location": {
      "file": "test/e2e/fixtures/test/fail/policy_test.rego",
      "row": 5,
      "col": 1
    },
    "package": "data.limits_test",
    "name": "test_small_is_allowed",
    "duration": 0
  },
  {
    "location": {
      "file": "test/e2e/fixtures/test/fail/policy_test.rego",
      "row": 7,
      "col": 1
    },
    "package": "data.limits_test",
    "name": "test_large_is_allowed",
    "fail": true,
    "duration": 0,
    "output": "dHJ5aW5nIDUK",
    "failed_at": {
      "location": {
        "file": "test/e2e/fixtures/test/fail/policy_test.rego",
        "row": 10,
        "col": 2
      },
      "text": "limits.allowed with input as {\"replicas\": n}"
    }
  },
  {
    "location": {
      "file": "test/e2e/fixtures/test/fail/policy_test.rego",
      "row": 13,
      "col": 1
    },
    "package": "data.limits_test",
    "name": "test_max_is_four",
    "fail": true,
    "duration": 0,
    "failed_at": {
      "location": {
        "file": "test/e2e/fixtures/test/fail/policy_test.rego",
        "row": 13,
        "col": 21
      },
      "text": "limits.max_replicas == 4"
    }
  },
  {
    "location": {
      "file": "test/e2e/fixtures/test/fail/policy_test.rego",
      "row": 15,
      "col": 1
    },
    "package": "data.limits_test",
    "name": "test_sizes",
    "fail": true,
    "duration": 0,
    "sub_results": {
      "1": {
        "name": "1"
      },
      "3": {
        "name": "3"
      },
      "4": {
        "name": "4",
        "fail": true
      }
    }
  }
]' "$gavel" test -f json -p 3 $fx/fail
check "--format json with no tests" 0 "[]" "$gavel" test --format json --run nothing_matches $fx/pass
check "--format json: skipped" 2 '[
  {
    "location": {
      "file": "test/e2e/fixtures/test/pass/authz_test.rego",
      "row": 19,
      "col": 1
    },
    "package": "data.authz_test",
    "name": "todo_test_admin",
    "skip": true,
    "duration": 0
  }
]' "$gavel" test --format json --run todo $fx/pass

# ---- coverage --------------------------------------------------------------------------

coverage='{
  "files": {
    "test/e2e/fixtures/test/coverage/policy.rego": {
      "covered": [
        {
          "start": {
            "row": 3
          },
          "end": {
            "row": 4
          }
        }
      ],
      "not_covered": [
        {
          "start": {
            "row": 7
          },
          "end": {
            "row": 9
          }
        },
        {
          "start": {
            "row": 12
          },
          "end": {
            "row": 12
          }
        }
      ],
      "covered_lines": 2,
      "not_covered_lines": 4,
      "coverage": 33.33
    },
    "test/e2e/fixtures/test/coverage/policy_test.rego": {
      "covered": [
        {
          "start": {
            "row": 5
          },
          "end": {
            "row": 5
          }
        }
      ],
      "covered_lines": 1,
      "coverage": 100
    }
  },
  "covered_lines": 3,
  "not_covered_lines": 4,
  "coverage": 42.86
}'
check "--coverage: OPA's report" 0 "$coverage" "$gavel" test --coverage $fx/coverage
check "--coverage in parallel: the same report" 0 "$coverage" "$gavel" test --coverage -p 4 $fx/coverage
check "--coverage --threshold met" 0 "$coverage" "$gavel" test --coverage --threshold 40 $fx/coverage
"$gavel" test --coverage --threshold 90 $fx/coverage > "$out" 2> "$err"
if [[ $? -eq 2 ]] && grep -qx 'Code coverage threshold not met: got 42.86 instead of 90.00' "$err"; then
    echo "ok   --coverage --threshold not met: exit 2"
else fail "--coverage --threshold not met: exit 2"; cat "$err"; fi

# ---- benchmarks --------------------------------------------------------------------------

"$gavel" test --bench --benchtime 20ms --run roles $fx/pass > "$out" 2> "$err"
status=$?
line='^data\.roles\.test_[a-z_]+'$'\t''[ 0-9]{8,}'$'\t''[ 0-9.]+ ns/op'$'\t''[ 0-9.]+ timer_rego_query_eval_ns/op'$'\t''[ 0-9]{8,} B/op'$'\t''[ 0-9]{8,} allocs/op$'
if [[ $status -eq 0 ]] && [[ $(grep -cE "$line" "$out") -eq 2 ]] && tail -1 "$out" | grep -qx 'PASS: 2/2'; then
    echo "ok   --bench prints Go benchmark lines"
else fail "--bench prints Go benchmark lines"; cat "$out" "$err"; fi
"$gavel" test --bench --no-benchmem --benchtime 20ms --run roles $fx/pass > "$out" 2> "$err"
if [[ $(grep -cE '^data\.roles\.test_[a-z_]+'$'\t''[ 0-9]{8,}'$'\t''[ 0-9.]+ ns/op'$'\t''[ 0-9.]+ timer_rego_query_eval_ns/op$' "$out") -eq 2 ]]; then
    echo "ok   --bench without --benchmem"
else fail "--bench without --benchmem"; cat "$out" "$err"; fi
"$gavel" test --bench --format gobench --benchtime 20ms --run roles $fx/pass > "$out" 2> "$err"
if [[ $(grep -cE '^BenchmarkDataRolesTest(AdminsFromData|MockedData)'$'\t''[ 0-9]{8,}'$'\t''[ 0-9.]+ ns/op' "$out") -eq 2 ]]; then
    echo "ok   --format gobench names benchmarks as Go does"
else fail "--format gobench names benchmarks as Go does"; cat "$out" "$err"; fi

# ---- the examples, and a broken copy of one --------------------------------------------

# Each v0 example directory holds a bundle manifest (.manifest, "rego_version": 0): no flag needed.
for dir in admission ingress-conflicts required-labels mutating; do
    "$gavel" test examples/$dir > "$out" 2> "$err" && grep -qE '^PASS: ([0-9]+)/\1$' "$out" &&
        [[ $(wc -l < "$out") -eq 1 ]] && echo "ok   examples/$dir" || { fail "examples/$dir"; cat "$out" "$err"; }
    "$gavel" test examples/$dir-v1 > "$out" 2> "$err" && grep -qE '^PASS: ([0-9]+)/\1$' "$out" &&
        [[ $(wc -l < "$out") -eq 1 ]] && echo "ok   examples/$dir-v1" || { fail "examples/$dir-v1"; cat "$out" "$err"; }
done
check "all examples at once (v1 files import rego.v1)" 0 "PASS: 46/46" "$gavel" test --v0-compatible --ignore pod.json \
    examples/admission examples/admission-v1 examples/ingress-conflicts examples/ingress-conflicts-v1 \
    examples/required-labels examples/required-labels-v1 examples/mutating examples/mutating-v1
# One root: each manifest's directory is a bundle root (data.kubernetes.ingresses from
# examples/ingress-conflicts*/kubernetes/ingresses/data.json; pod.json is not data in a bundle).
check "gavel test examples/ (bundle manifests: dialect and data roots)" 0 "PASS: 47/47" "$gavel" test examples/
check "gavel check examples/ without --v0-compatible" 0 "" "$gavel" check examples/
check "gavel eval -d examples/admission without --v0-compatible" 0 '[
  [
    "image '"'"'mysql'"'"' comes from untrusted registry",
    "image '"'"'nginx'"'"' comes from untrusted registry"
  ]
]' "$gavel" eval --format values -d examples/admission -i examples/admission/pod.json 'data.kubernetes.admission.deny'
# Without the manifest the same v0 tree fails to parse in v1 mode (so the manifest is what made it work).
cp -r examples/admission "$tmp/admission-no-manifest"
rm "$tmp/admission-no-manifest/.manifest"
"$gavel" test "$tmp/admission-no-manifest" > "$out" 2> "$err"
if [[ $? -eq 1 ]] && grep -q "rego_parse_error" "$err"; then echo "ok   v0 example without its manifest: parse error"
else fail "v0 example without its manifest: parse error"; cat "$out" "$err"; fi
# file_rego_versions beats rego_version, per file (globs of the bundle-absolute path, as OPA's -b).
mkdir -p "$tmp/mixed/legacy"
printf '{"rego_version": 1, "file_rego_versions": {"/legacy/*.rego": 0}}\n' > "$tmp/mixed/.manifest"
printf 'package old\nallow { input.x == 1 }\ntest_old { allow with input as {"x": 1} }\n' > "$tmp/mixed/legacy/old.rego"
printf 'package new\nallow if input.x == 1\ntest_new if allow with input as {"x": 1}\n' > "$tmp/mixed/new.rego"
check "file_rego_versions: a v0 file in a v1 bundle" 0 "PASS: 2/2" "$gavel" test "$tmp/mixed"

# The image policy checking the wrong kind: exactly the tests expecting a denial fail.
cp -r examples/admission-v1 "$tmp/"
sed -i 's/kind.kind == "Pod"/kind.kind == "Pods"/' "$tmp/admission-v1/image-registry.rego"
check "a broken copy of the image policy fails exactly the denial tests" 2 "admission-v1/image-registry_test.rego:
data.kubernetes.admission_v1_test.test_image_safety: FAIL (D)
  admission-v1/image-registry_test.rego:27: count(admission.deny) == 1 with input as unsafe_image
data.kubernetes.admission_v1_test.test_denial_names_the_image: FAIL (D)
  admission-v1/image-registry_test.rego:31: \"image 'busybox' comes from untrusted registry\" in admission.deny with input as unsafe_image
data.kubernetes.admission_v1_test.test_untrusted_images: FAIL (D)
  admission-v1/image-registry_test.rego:45: count(admission.deny) == 1 with input as pod
  docker.io/library/redis: FAIL
  mysql:8: FAIL
  nginx: FAIL
--------------------------------------------------------------------------------
PASS: 3/8
FAIL: 5/8" bash -c "cd '$tmp' && '$(realpath "$gavel")' test admission-v1"

# ---- --watch ---------------------------------------------------------------------------

mkdir -p "$tmp/watch"
printf 'package w\n\ntest_a if true\n' > "$tmp/watch/w_test.rego"
"$gavel" test --watch "$tmp/watch" > "$out" 2> "$err" &
watcher=$!
# Change the file only once the first run is reported (and its snapshot taken).
for _ in $(seq 1 40); do grep -q '^PASS: 1/1$' "$out" && break; sleep 0.25; done
sleep 0.5
printf 'package w\n\ntest_a if true\n\ntest_b if false\n' > "$tmp/watch/w_test.rego"
for _ in $(seq 1 40); do grep -q '^FAIL: 1/2$' "$out" && break; sleep 0.25; done
kill "$watcher" 2> /dev/null; wait "$watcher" 2> /dev/null
if head -1 "$out" | grep -qx 'PASS: 1/1' && grep -qx 'Watcher: re-running tests' "$out" && grep -qx 'FAIL: 1/2' "$out"; then
    echo "ok   --watch re-runs on change"
else fail "--watch re-runs on change"; cat "$out" "$err"; fi

finish
