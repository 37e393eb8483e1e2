#!/usr/bin/env bash
# gavel check: exact diagnostics and exit codes on fixture trees.
source "$(dirname "$0")/lib.sh"

expect() {  # name, expected status, command...
    local name=$1 want=$2; shift 2
    "$@" > /tmp/gavel_e2e_out.$$ 2> /tmp/gavel_e2e_err.$$
    local got=$?
    if [[ $got -ne $want ]]; then
        echo "FAIL $name: exit $got, want $want"; cat /tmp/gavel_e2e_err.$$; failures=$((failures + 1))
    else
        echo "ok   $name"
    fi
}

expect "syntax errors exit 1 (the first statement that cannot be read ends the parse, as in OPA)" 1 "$gavel" check test/e2e/fixtures/check
if diff -u test/e2e/fixtures/check/three_errors.expected /tmp/gavel_e2e_err.$$; then
    echo "ok   first syntax error, exact output"
else
    echo "FAIL first syntax error, exact output"; failures=$((failures + 1))
fi

# As opa check: what parses is compiled too (unsafe variables, undefined functions).
expect "compile errors exit 1" 1 "$gavel" check test/e2e/fixtures/check-compile
if diff -u test/e2e/fixtures/check-compile/unsafe.expected /tmp/gavel_e2e_err.$$; then
    echo "ok   compile errors, exact output"
else
    echo "FAIL compile errors, exact output"; failures=$((failures + 1))
fi

# --format json: OPA's {"errors": [...]} on stderr.
expect "compile errors as JSON exit 1" 1 "$gavel" check --format json test/e2e/fixtures/check-compile
if diff -u test/e2e/fixtures/check-compile/unsafe.expected.json /tmp/gavel_e2e_err.$$; then
    echo "ok   compile errors as JSON, exact output"
else
    echo "FAIL compile errors as JSON, exact output"; failures=$((failures + 1))
fi
expect "parse errors as JSON exit 1" 1 "$gavel" check -f json test/e2e/fixtures/check
if grep -q '"details": {' /tmp/gavel_e2e_err.$$ && grep -q '"code": "rego_parse_error"' /tmp/gavel_e2e_err.$$; then
    echo "ok   parse errors as JSON carry details"
else
    echo "FAIL parse errors as JSON carry details"; failures=$((failures + 1))
fi

# --capabilities FILE: builtins the file lacks are undefined functions.
caps=$(mktemp -d)
"$gavel" capabilities > "$caps/all.json"
python3 -c "import json, sys; c = json.load(open(sys.argv[1])); c['builtins'] = [b for b in c['builtins'] if b['name'] != 'startswith']; json.dump(c, open(sys.argv[2], 'w'))" "$caps/all.json" "$caps/old.json"
expect "--capabilities with every builtin" 0 "$gavel" check --capabilities "$caps/all.json" examples/admission-v1
expect "--capabilities without startswith exit 1" 1 "$gavel" check --capabilities "$caps/old.json" examples/admission-v1/image-registry.rego
if grep -q "rego_type_error: undefined function startswith" /tmp/gavel_e2e_err.$$; then echo "ok   --capabilities names the builtin"; else
    echo "FAIL --capabilities names the builtin"; cat /tmp/gavel_e2e_err.$$; failures=$((failures + 1)); fi
expect "eval --capabilities without startswith exit 2" 2 "$gavel" eval --capabilities "$caps/old.json" -f pretty 'startswith("ab", "a")'
if grep -q "undefined function startswith" /tmp/gavel_e2e_err.$$; then echo "ok   eval --capabilities names the builtin"; else
    echo "FAIL eval --capabilities names the builtin"; cat /tmp/gavel_e2e_err.$$; failures=$((failures + 1)); fi
expect "--capabilities of a missing file exit 1" 1 "$gavel" check --capabilities "$caps/none.json" examples/admission-v1
rm -rf "$caps"

# Type errors as OPA words them: have/want with argument names, undefined refs, match errors.
expect "type errors exit 1" 1 "$gavel" check test/e2e/fixtures/check-types
if diff -u test/e2e/fixtures/check-types/types.expected /tmp/gavel_e2e_err.$$; then
    echo "ok   type errors, exact output"
else
    echo "FAIL type errors, exact output"; failures=$((failures + 1))
fi
expect "type errors as JSON exit 1" 1 "$gavel" check --format json test/e2e/fixtures/check-types
if diff -u test/e2e/fixtures/check-types/types.expected.json /tmp/gavel_e2e_err.$$; then
    echo "ok   type errors as JSON (OPA's details objects), exact output"
else
    echo "FAIL type errors as JSON, exact output"; failures=$((failures + 1))
fi

expect "v0 example in v0 mode" 0 "$gavel" check --v0-compatible examples/admission
expect "v1 example" 0 "$gavel" check examples/admission-v1
expect "v0 example in v1 mode: its .manifest says rego_version 0" 0 "$gavel" check examples/admission
v0_copy=$(mktemp -d); at_exit 'rm -rf "$v0_copy"'
cp examples/admission/*.rego "$v0_copy"/  # without the bundle manifest
expect "v0 policy without a manifest in v1 mode fails" 1 "$gavel" check "$v0_copy"
if grep -q -- "--v0-compatible" /tmp/gavel_e2e_err.$$; then echo "ok   v1 mode names the flag"; else
    echo "FAIL v1 mode names the flag"; failures=$((failures + 1)); fi
expect "missing path" 1 "$gavel" check does/not/exist
# -m: the error limit (OPA's default 10, then "error limit reached").
limits=$(mktemp -d)
for i in $(seq 1 12); do printf 'package p%d\n\nx := undefined_f(1)\n' "$i" > "$limits/m$i.rego"; done
expect "-m 3 exit 1" 1 "$gavel" check -m 3 "$limits"
if [[ $(grep -c "undefined function undefined_f" /tmp/gavel_e2e_err.$$) -eq 3 ]] && grep -q "rego_compile_error: error limit reached" /tmp/gavel_e2e_err.$$; then
    echo "ok   -m 3: three errors, then the limit"; else echo "FAIL -m 3"; cat /tmp/gavel_e2e_err.$$; failures=$((failures + 1)); fi
expect "-m 0 exit 1" 1 "$gavel" check -m 0 "$limits"
if [[ $(grep -c "undefined function undefined_f" /tmp/gavel_e2e_err.$$) -eq 12 ]]; then echo "ok   -m 0: no limit"; else
    echo "FAIL -m 0: no limit"; failures=$((failures + 1)); fi
rm -rf "$limits"
expect "-b: a bundle directory (its manifest says v0)" 0 "$gavel" check -b examples/admission
expect "-b: a file is no bundle" 1 "$gavel" check -b examples/admission/image-registry.rego
expect "parse prints the AST" 0 "$gavel" parse --format json examples/admission-v1/image-registry.rego
if grep -q '"kubernetes"' /tmp/gavel_e2e_out.$$; then echo "ok   parse json names the package"; else
    echo "FAIL parse json names the package"; failures=$((failures + 1)); fi
expect "parse of a broken file" 1 "$gavel" parse test/e2e/fixtures/check/three_errors.rego

rm -f /tmp/gavel_e2e_out.$$ /tmp/gavel_e2e_err.$$
finish
