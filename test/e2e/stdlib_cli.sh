#!/usr/bin/env bash
# gavel capabilities (OPA's builtin list), deprecated builtins in v0 and v1
# mode, and http.send's network switch (--allow-net).
source "$(dirname "$0")/lib.sh"
out=/tmp/gavel_e2e_stdlib_out.$$
err=/tmp/gavel_e2e_stdlib_err.$$
at_exit 'rm -f "$out" "$err"'
fx=test/e2e/fixtures/stdlib
opa_caps=${GAVEL_CONFORMANCE_DIR:-$root/../shared/conformance/opa}/capabilities.json

ok() { echo "ok   $1"; }
names() { grep -o '"name": *"[^"]*"' "$1" | sed 's/"name": *"\(.*\)"/\1/' | sort -u; }

# capabilities: JSON with every builtin of OPA's list.
if "$gavel" capabilities > "$out" 2> "$err"; then
    if [[ -f $opa_caps ]]; then
        missing=$(comm -23 <(names "$opa_caps") <(names "$out") | tr '\n' ' ')
        if [[ -z $missing ]]; then ok "capabilities: every builtin of OPA's list"
        else fail "capabilities: missing builtins: $missing"; fi
    else
        echo "skip capabilities comparison: $opa_caps not found"
    fi
    grep -q '"name": "http.send"' "$out" && grep -q '"nondeterministic": true' "$out" && ok "capabilities: flags" ||
        fail "capabilities: http.send or its flag missing"
else
    fail "capabilities: exit $?"; cat "$err"
fi

# Deprecated builtins: fine in --v0-compatible mode ...
input='{"admin": false, "owner": true, "group": "team-a"}'
if printf '%s' "$input" | "$gavel" eval --v0-compatible -I -d "$fx/v0_deprecated.rego" --format raw 'data.legacy.allowed' > "$out" 2> "$err" &&
    [[ $(cat "$out") == '["team-a may pass"]' ]]; then ok "deprecated builtins in v0 mode"
else fail "deprecated builtins in v0 mode: $(cat "$out" "$err")"; fi
# ... and OPA's type error in v1 mode.
printf 'package p\nx := any([true])\n' > "$out.rego"
"$gavel" eval -d "$out.rego" 'data.p.x' > "$out" 2> "$err"
status=$?
if [[ $status -ne 0 ]] && grep -q '"message": "deprecated built-in function calls in expression: any"' "$out" &&
    grep -q '"code": "rego_type_error"' "$out"; then
    ok "deprecated builtins rejected in v1 mode"
else fail "deprecated builtins in v1 mode: exit $status: $(cat "$out" "$err")"; fi
rm -f "$out.rego"

# http.send: off by default ("unallowed host"), on with --allow-net (here: a refused connection).
call='http.send({"method": "get", "url": "http://127.0.0.1:1/"})'
"$gavel" eval --strict-builtin-errors "$call" > "$out" 2> "$err"
if grep -q '"message": "http.send: unallowed host: 127.0.0.1"' "$out"; then ok "http.send without --allow-net"
else fail "http.send without --allow-net: $(cat "$out" "$err")"; fi
"$gavel" eval --allow-net --strict-builtin-errors "$call" > "$out" 2> "$err"
if grep -q 'dial tcp 127.0.0.1:1: connect: connection refused' "$out"; then ok "http.send with --allow-net"
else fail "http.send with --allow-net: $(cat "$out" "$err")"; fi

finish
