#!/usr/bin/env bash
# Bundles a real `opa build` (OPA 1.7.1) signed (fixtures/bundles/opa_signed/) in every
# entry point: eval -b (unverified as opa eval; verified with a key), test -b and check -b
# (unverified, as OPA), repl -b, run -b, run --server -b, serve -b and build -b (verified, as
# opa run and opa build), with OPA's flags
# (--verification-key, --verification-key-id, --signing-alg, --scope, --exclude-files-verify,
# --skip-verify). Bundles tampered with here are refused with the texts opa run printed for
# them. And the other way round: gavel build signs the same files with the same key into
# the very .signatures.json OPA wrote, so OPA verifies gavel's bundles.
source "$(dirname "$0")/lib.sh"
expect_in() { if [[ "$2" == *"$3"* ]]; then pass "$1"; else fail "$1: [$2] lacks [$3]"; fi; }
fx=test/e2e/fixtures/bundles/opa_signed
keys=$fx/keys
secret=$(cat "$keys/hmac_secret.txt")
q=data.appdata.word

# repl_q ARGS...: the REPL's answer to data.appdata.word (or its error) for `repl ARGS`.
repl_q() { echo "$q" | "$gavel" repl "$@" 2>&1 | head -1; }

# rewrite IN OUT PYTHON: OUT is IN's files (a dict name -> bytes, names without the leading
# '/') after PYTHON ran on them, written back as OPA lays them out.
rewrite() {
    python3 - "$1" "$2" "$3" <<'PY'
import io, sys, tarfile
src, out, code = sys.argv[1:4]
with tarfile.open(src, "r:gz") as t:
    files = {m.name.lstrip("/"): t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
exec(code)
with tarfile.open(out, "w:gz", format=tarfile.USTAR_FORMAT) as t:
    for name, data in files.items():
        info = tarfile.TarInfo("/" + name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PY
}
rewrite "$fx/rsa.tar.gz" "$work/tampered.tar.gz" 'files["data.json"] = files["data.json"].replace(b"refused", b"accepted")'
rewrite "$fx/rsa.tar.gz" "$work/tampered_rego.tar.gz" 'files["app/policy.rego"] += b"# edited\n"'
rewrite "$fx/rsa.tar.gz" "$work/extra.tar.gz" 'files["README.md"] = b"hi\n"'
rewrite "$fx/rsa.tar.gz" "$work/custom.tar.gz" '
import json
s = json.loads(files[".signatures.json"]); s["plugin"] = "custom"; files[".signatures.json"] = json.dumps(s).encode()'
rewrite "$fx/rsa.tar.gz" "$work/noplugin.tar.gz" '
import json
s = json.loads(files[".signatures.json"]); del s["plugin"]; files[".signatures.json"] = json.dumps(s).encode()'
grep -q '"plugin": "_default"' <(tar xzf "$fx/rsa.tar.gz" -O /.signatures.json 2>/dev/null) &&
    pass "the fixture is OPA's: .signatures.json names plugin _default" || fail "fixture has no plugin"

# ---- eval -b: unverified without a key (opa eval never verifies), verified with one ------------------------
for b in plain rsa hs256 es256 scoped; do
    expect_eq "eval -b $b.tar.gz without a key" "$("$gavel" eval -b "$fx/$b.tar.gz" --format raw $q 2>&1)" refused
done
expect_eq "eval -b a tampered bundle without a key: read as opa eval reads it" \
    "$("$gavel" eval -b "$work/tampered.tar.gz" --format raw $q 2>&1)" accepted
expect_eq "eval -b RS256 verified" "$("$gavel" eval -b "$fx/rsa.tar.gz" --verification-key "$keys/rsa_public.pem" --format raw $q 2>&1)" refused
expect_eq "eval -b HS256 verified" \
    "$("$gavel" eval -b "$fx/hs256.tar.gz" --verification-key "$secret" --signing-alg HS256 --format raw $q 2>&1)" refused
expect_eq "eval -b ES256 verified" \
    "$("$gavel" eval -b "$fx/es256.tar.gz" --verification-key "$keys/ec_public.pem" --signing-alg ES256 --format raw $q 2>&1)" refused
expect_eq "eval -b claims file and --scope verified" \
    "$("$gavel" eval -b "$fx/scoped.tar.gz" --verification-key "$keys/rsa_public.pem" --scope write --format raw $q 2>&1)" refused
expect_eq "eval -b --verification-key-id names the key given" \
    "$("$gavel" eval -b "$fx/rsa.tar.gz" --verification-key "$keys/rsa_public.pem" --verification-key-id other --format raw $q 2>&1)" refused
expect_eq "eval -b without the plugin field (older OPA) verified" \
    "$("$gavel" eval -b "$work/noplugin.tar.gz" --verification-key "$keys/rsa_public.pem" --format raw $q 2>&1)" refused
expect_in "eval -b tampered data, OPA's error" \
    "$("$gavel" eval -b "$work/tampered.tar.gz" --verification-key "$keys/rsa_public.pem" $q 2>&1)" \
    "bundle $work/tampered.tar.gz: data.json: digest mismatch (want: c6de098dacdaac5bdc0217bee75c2a2da36999215be6c73d484ebe3d179ec4f4, got: a72454c90cd21d80887584398d8fb140869ff2538143caae1422c34ff0a484d7)"
expect_eq "eval -b --exclude-files-verify leaves the tampered file unchecked" \
    "$("$gavel" eval -b "$work/tampered.tar.gz" --verification-key "$keys/rsa_public.pem" --exclude-files-verify data.json --format raw $q 2>&1)" accepted

# ---- test -b and check -b read signed bundles without verifying, as OPA's ----------------------------------
expect_eq "test -b an OPA-signed bundle" "$("$gavel" test -b "$fx/rsa.tar.gz" 2>&1)" "PASS: 1/1"
expect_eq "test -b a tampered one (not verified, as opa test)" "$("$gavel" test -b "$work/tampered.tar.gz" 2>&1)" "PASS: 1/1"
"$gavel" check -b "$fx/rsa.tar.gz" && pass "check -b an OPA-signed bundle" || fail "check -b"
"$gavel" check -b "$work/custom.tar.gz" && pass "check -b: the plugin is not looked at without verifying" || fail "check -b custom"

# ---- repl -b verifies, as opa run: OPA's texts, recorded from `opa run -b ...` ------------------------------
expect_eq "repl -b RS256" "$(repl_q -b "$fx/rsa.tar.gz" --verification-key "$keys/rsa_public.pem")" '"refused"'
expect_eq "repl -b HS256" "$(repl_q -b "$fx/hs256.tar.gz" --verification-key "$secret" --signing-alg HS256)" '"refused"'
expect_eq "repl -b --skip-verify" "$(repl_q -b "$fx/rsa.tar.gz" --skip-verify)" '"refused"'
expect_eq "repl -b an unsigned bundle without a key" "$(repl_q -b "$fx/plain.tar.gz")" '"refused"'
# expect_opa NAME OPA_TEXT ARGS...: repl's error for ARGS ends with what opa run printed.
expect_opa() {
    local name=$1 want=$2; shift 2
    local got; got=$(repl_q "$@")
    [[ $got == *": $want" ]] && pass "$name" || fail "$name: got [$got], OPA said [$want]"
}
expect_opa "signed, no key" "verification key not provided" -b "$fx/rsa.tar.gz"
expect_opa "unsigned, with a key" "bundle missing .signatures.json file" -b "$fx/plain.tar.gz" --verification-key "$keys/rsa_public.pem"
expect_opa "RS256, wrong key" "failed to verify message: crypto/rsa: verification error" \
    -b "$fx/rsa.tar.gz" --verification-key "$keys/other_public.pem"
expect_opa "HS256, wrong secret" "failed to verify message: failed to match hmac signature" \
    -b "$fx/hs256.tar.gz" --verification-key wrong --signing-alg HS256
expect_opa "ES256, wrong key" "failed to verify message: failed to verify signature using ecdsa" \
    -b "$fx/es256.tar.gz" --verification-key "$keys/ec_other_public.pem" --signing-alg ES256
expect_opa "ES256 with an RSA key" "failed to verify message: invalid key type *rsa.PublicKey. *ecdsa.PublicKey is required" \
    -b "$fx/es256.tar.gz" --verification-key "$keys/rsa_public.pem" --signing-alg ES256
expect_opa "RS256 with an EC key" "failed to verify message: invalid key type *ecdsa.PublicKey. *rsa.PublicKey is required" \
    -b "$fx/rsa.tar.gz" --verification-key "$keys/ec_public.pem"
expect_opa "claims scope, none asked" "scope mismatch" -b "$fx/scoped.tar.gz" --verification-key "$keys/rsa_public.pem"
expect_opa "no scope signed, one asked" "scope mismatch" -b "$fx/rsa.tar.gz" --verification-key "$keys/rsa_public.pem" --scope write
expect_opa "a verifier OPA does not have" "no verifier exists under id custom" -b "$work/custom.tar.gz" --verification-key "$keys/rsa_public.pem"
expect_opa "a file the signature does not list" "file README.md not included in bundle signature" \
    -b "$work/extra.tar.gz" --verification-key "$keys/rsa_public.pem"
expect_eq "... unless excluded" "$(repl_q -b "$work/extra.tar.gz" --verification-key "$keys/rsa_public.pem" --exclude-files-verify README.md)" '"refused"'
expect_opa "tampered policy" \
    "app/policy.rego: digest mismatch (want: ad7fbd512a38551f07147d201c71f8fac7c31a3d04fd645ce6c7fa9de2b0b816, got: d47c4779d198878ad09eff9453bda84e2b70f42b30cf86486d510a85352e4e3c)" \
    -b "$work/tampered_rego.tar.gz" --verification-key "$keys/rsa_public.pem"

# ---- serve -b verifies, as opa run --server -b --------------------------------------------------------------
review='{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","object":{"metadata":{"name":"bad"}}}}'
start_server s --insecure-http -b "$fx/rsa.tar.gz" --verification-key "$keys/rsa_public.pem" || exit 1
expect_eq "serve -b: data" "$(curl -s "http://127.0.0.1:$s_rest_port/v1/data/appdata/word")" '{"result":"refused"}'
expect_in "serve -b: admission decision" "$(curl -s "http://127.0.0.1:$s_port/validate/app" --data-binary "$review")" 'bad name (refused)'
stop_server "$s_pid"
start_server h --insecure-http -b "$fx/hs256.tar.gz" --verification-key "$secret" --signing-alg HS256 || exit 1
expect_eq "serve -b HS256: data" "$(curl -s "http://127.0.0.1:$h_rest_port/v1/data/appdata/word")" '{"result":"refused"}'
stop_server "$h_pid"
out=$("$gavel" serve --insecure-http --addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 -b "$work/tampered.tar.gz" \
    --verification-key "$keys/rsa_public.pem" 2>&1)
expect_in "serve -b refuses a tampered bundle at start" "$out" "data.json: digest mismatch"
out=$("$gavel" serve --insecure-http --addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 -b "$fx/rsa.tar.gz" 2>&1)
expect_in "serve -b refuses a signed bundle without a key" "$out" "verification key not provided"

# ---- gavel run, OPA's own command line: the REPL and --server -b ------------------------------------------------
expect_eq "run -b (REPL) verified" "$(echo "$q" | "$gavel" run -b "$fx/rsa.tar.gz" --verification-key "$keys/rsa_public.pem" 2>&1 | head -1)" '"refused"'
expect_in "run -b (REPL) without a key" "$(echo "$q" | "$gavel" run -b "$fx/rsa.tar.gz" 2>&1 | head -1)" "verification key not provided"
free_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$gavel" run --server --addr "127.0.0.1:$free_port" -b "$fx/hs256.tar.gz" --verification-key "$secret" --signing-alg HS256 \
    > "$work/run.out" 2> "$work/run.log" &
run_pid=$!
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$free_port/health" && break; sleep 0.1; done
expect_eq "run --server -b HS256: data" "$(curl -s "http://127.0.0.1:$free_port/v1/data/appdata/word")" '{"result":"refused"}'
kill -TERM "$run_pid"; wait "$run_pid" 2>/dev/null

# ---- gavel's signatures are OPA's, byte for byte -------------------------------------------------------------
# RS256 (PKCS #1 v1.5) and HS256 are deterministic: the same files and key give the same token.
sig() { tar xzf "$1" -O /.signatures.json 2>/dev/null || tar xzf "$1" -O .signatures.json; }
(cd "$fx/src" && "$gavel" build -b . -o "$work/g_rsa.tar.gz" --signing-key ../keys/rsa_private.pem &&
    "$gavel" build -b . -o "$work/g_hs256.tar.gz" --signing-alg HS256 --signing-key "$secret" &&
    "$gavel" build -b . -o "$work/g_scoped.tar.gz" --signing-key ../keys/rsa_private.pem --claims-file ../keys/claims.json) ||
    fail "gavel build of the fixture"
for b in rsa hs256 scoped; do
    expect_eq "gavel build signs as opa build ($b)" "$(sig "$work/g_$b.tar.gz")" "$(sig "$fx/$b.tar.gz")"
done
expect_in "build -b a signed bundle without a key: refused, as opa build" \
    "$("$gavel" build -b "$fx/rsa.tar.gz" -o "$work/x.tar.gz" 2>&1)" "bundle $fx/rsa.tar.gz: verification key not provided"
"$gavel" build -b "$fx/rsa.tar.gz" --verification-key "$keys/rsa_public.pem" --signing-key "$keys/rsa_private.pem" -o "$work/resigned.tar.gz" &&
    expect_eq "verify then re-sign an OPA bundle: OPA's signature again" "$(sig "$work/resigned.tar.gz")" "$(sig "$fx/rsa.tar.gz")" ||
    fail "re-sign an OPA bundle"

finish
