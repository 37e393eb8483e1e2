#!/usr/bin/env bash
# Bundles on the command line: gavel build (plain files and -b, --revision, --ignore,
# signing with RS256 and HS256, verification on rebuild), gavel inspect (pretty and
# OPA's JSON), -b in eval, test, check and repl, OPA's roots errors, bad archives.
# OPA compatibility both ways without an OPA binary: fixtures/bundles/opa_format.py
# writes a bundle by hand as OPA's Go code does and checks gavel's the way OPA's verifier does.
source "$(dirname "$0")/lib.sh"
expect_in() { if [[ "$2" == *"$3"* ]]; then pass "$1"; else fail "$1: [$2] lacks [$3]"; fi; }
opa_format=test/e2e/fixtures/bundles/opa_format.py

src=$work/src
mkdir -p "$src/kubernetes/admission" "$src/kubernetes/config"
cat > "$src/kubernetes/admission/policy.rego" <<'REGO'
# METADATA
# title: Pod rules
package kubernetes.admission

deny contains msg if {
	input.kind == "Pod"
	msg := sprintf("pods are %v", [data.kubernetes.config.word])
}
REGO
printf 'package kubernetes.admission_test\n\nimport data.kubernetes.admission\n\ntest_deny if count(admission.deny) == 1 with input as {"kind": "Pod"}\n' > "$src/kubernetes/admission/policy_test.rego"
echo '{"word": "not allowed", "n": 1.50}' > "$src/kubernetes/config/data.json"
echo '{"revision": "r1", "roots": ["kubernetes"], "metadata": {"team": "platform"}}' > "$src/.manifest"
echo '{"kind":"Pod"}' > "$work/pod.json"

# ---- build and inspect ------------------------------------------------------------------------------------
"$gavel" build -b "$src" -o "$work/b.tar.gz" --revision r2 && pass "build -b" || fail "build -b"
listing=$(tar tzf "$work/b.tar.gz" | tr '\n' ' ')
expect_eq "archive layout as OPA's writer" "$listing" "/data.json /kubernetes/admission/policy.rego /kubernetes/admission/policy_test.rego /.manifest "
expect_eq "manifest: revision overridden, roots and rego_version kept" "$(tar xzf "$work/b.tar.gz" -O /.manifest 2>/dev/null || tar xzf "$work/b.tar.gz" -O .manifest)" \
    '{"revision":"r2","roots":["kubernetes"],"rego_version":1,"metadata":{"team":"platform"}}'
out=$("$gavel" inspect "$work/b.tar.gz")
grep -q '^| Revision *| r2 *|$' <<< "$out" && pass "inspect: revision" || fail "inspect: revision: $out"
expect_in "inspect: namespace" "$out" "data.kubernetes.admission"
json=$("$gavel" inspect -f json -a "$work/b.tar.gz")
echo "$json" > "$work/inspect.json"
expect_eq "inspect json: manifest" "$("$gavel" eval --format raw -i "$work/inspect.json" input.manifest.roots)" '["kubernetes"]'
expect_eq "inspect json: namespaces" "$("$gavel" eval --format raw -i "$work/inspect.json" 'count(input.namespaces["data.kubernetes.admission"])')" 1
expect_eq "inspect json: annotations" "$("$gavel" eval --format raw -i "$work/inspect.json" 'input.annotations[0].annotations.title')" "Pod rules"
# As OPA's AnnotationsRef: the location of the package the block annotates (line 3), not the block's.
expect_eq "inspect json: annotation location" "$("$gavel" eval --format raw -i "$work/inspect.json" 'input.annotations[0].location.row')" 3
"$gavel" build "$src/kubernetes" -o "$work/plain.tar.gz" --ignore '*_test.rego' && pass "build without -b" || fail "build without -b"
expect_eq "--ignore leaves files out" "$(tar tzf "$work/plain.tar.gz" | grep -c _test)" 0

# ---- -b in eval, test, check, repl --------------------------------------------------------------------------
expect_eq "eval -b archive" "$("$gavel" eval -b "$work/b.tar.gz" -i "$work/pod.json" --format raw data.kubernetes.admission.deny)" '["pods are not allowed"]'
expect_eq "eval -b directory" "$("$gavel" eval -b "$src" --format raw data.kubernetes.config.n)" '1.50'
out=$("$gavel" test -b "$work/b.tar.gz"); expect_eq "test -b" "$out" "PASS: 1/1"
"$gavel" check -b "$work/b.tar.gz" && pass "check -b archive" || fail "check -b archive"
expect_eq "repl -b" "$(echo 'data.kubernetes.config.word' | "$gavel" repl -b "$work/b.tar.gz")" '"not allowed"'

# ---- roots ---------------------------------------------------------------------------------------------------
bad=$work/badroots; mkdir -p "$bad/x"
echo '{"roots": ["other"]}' > "$bad/.manifest"
cp "$src/kubernetes/admission/policy.rego" "$bad/"
out=$("$gavel" check -b "$bad" 2>&1)
expect_in "package outside the roots" "$out" "manifest roots [other] do not permit 'package kubernetes.admission' in module"
rm "$bad/policy.rego"; echo '{"y": 1}' > "$bad/x/data.json"
out=$("$gavel" eval -b "$bad" data 2>&1)
expect_in "data outside the roots" "$out" "manifest roots [other] do not permit data at path '/x' (hint: check bundle directory structure)"
echo '{"roots": ["a", "a/b"]}' > "$bad/.manifest"; rm -r "$bad/x"
out=$("$gavel" eval -b "$bad" data 2>&1)
expect_in "overlapped roots in one manifest" "$out" "manifest has overlapped roots: 'a' and 'a/b'"
out=$("$gavel" eval -b "$work/b.tar.gz" -b "$src" data 2>&1)
expect_in "overlapping roots between bundles" "$out" "detected overlapping roots in manifests for these bundles:"

# ---- bad archives ----------------------------------------------------------------------------------------------
python3 - "$work" <<'PY'
import io, sys, tarfile, gzip
w = sys.argv[1]
def tgz(name, members):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for m, data in members:
            t.addfile(m, io.BytesIO(data) if data is not None else None)
    open(f"{w}/{name}", "wb").write(gzip.compress(buf.getvalue()))
def reg(name, data):
    i = tarfile.TarInfo(name); i.size = len(data); return (i, data)
def link(name, target, kind):
    i = tarfile.TarInfo(name); i.type = kind; i.linkname = target; return (i, None)
tgz("traversal.tar.gz", [reg("../../etc/evil.rego", b"package x\n")])
tgz("symlink.tar.gz", [link("data.json", "/etc/passwd", tarfile.SYMTYPE)])
tgz("hardlink.tar.gz", [link("data.json", "/etc/passwd", tarfile.LNKTYPE)])
full = io.BytesIO()
with tarfile.open(fileobj=full, mode="w") as t:
    i, d = reg("data.json", b'{"a": 1}' + b" " * 5000); t.addfile(i, io.BytesIO(d))
open(f"{w}/truncated.tar.gz", "wb").write(gzip.compress(full.getvalue()[:2048]))
z = gzip.compress(full.getvalue()); open(f"{w}/cut.tar.gz", "wb").write(z[:len(z) // 2])
open(f"{w}/notgzip.tar.gz", "wb").write(b"hello, not an archive")
PY
expect_in "path traversal refused" "$("$gavel" eval -b "$work/traversal.tar.gz" data 2>&1)" "path traversal in entry name ../../etc/evil.rego"
expect_in "symbolic link refused" "$("$gavel" eval -b "$work/symlink.tar.gz" data 2>&1)" "symbolic link entries are not allowed: data.json"
expect_in "hard link refused" "$("$gavel" eval -b "$work/hardlink.tar.gz" data 2>&1)" "hard link entries are not allowed: data.json"
expect_in "truncated entry refused" "$("$gavel" eval -b "$work/truncated.tar.gz" data 2>&1)" "entry data.json is truncated"
expect_in "cut gzip stream refused" "$("$gavel" eval -b "$work/cut.tar.gz" data 2>&1)" "gzip: unexpected EOF"
expect_in "not gzip refused" "$("$gavel" eval -b "$work/notgzip.tar.gz" data 2>&1)" "gzip: invalid header"

# ---- signing and verification (RS256, HS256), OPA's errors -------------------------------------------------------
openssl genrsa -out "$work/key.pem" 2048 2>/dev/null; openssl rsa -in "$work/key.pem" -pubout -out "$work/pub.pem" 2>/dev/null
openssl genrsa -out "$work/other.pem" 2048 2>/dev/null; openssl rsa -in "$work/other.pem" -pubout -out "$work/otherpub.pem" 2>/dev/null
"$gavel" build -b "$src" -o "$work/signed.tar.gz" --signing-key "$work/key.pem" && pass "build signed (RS256)" || fail "build signed"
expect_eq "signed: verifies" "$("$gavel" eval -b "$work/signed.tar.gz" --verification-key "$work/pub.pem" --format raw data.kubernetes.config.word)" 'not allowed'
expect_eq "signed: eval without a key reads it unverified, as opa eval" "$("$gavel" eval -b "$work/signed.tar.gz" --format raw data.kubernetes.config.word)" 'not allowed'
expect_in "signed: repl without a key refuses it, as opa run" "$(echo data | "$gavel" repl -b "$work/signed.tar.gz" 2>&1)" "verification key not provided"
expect_in "signed: wrong key" "$("$gavel" eval -b "$work/signed.tar.gz" --verification-key "$work/otherpub.pem" data 2>&1)" "failed to verify message: crypto/rsa: verification error"
expect_in "signed: wrong scope" "$("$gavel" eval -b "$work/signed.tar.gz" --verification-key "$work/pub.pem" --scope write data 2>&1)" "scope mismatch"
expect_in "unsigned with a key id" "$("$gavel" eval -b "$work/b.tar.gz" --verification-key "$work/pub.pem" data 2>&1)" "bundle missing .signatures.json file"
mkdir -p "$work/tamper" && tar xzf "$work/signed.tar.gz" -C "$work/tamper" 2>/dev/null
sed -i 's/pods are/PODS ARE/' "$work/tamper/kubernetes/admission/policy.rego"
(cd "$work/tamper" && tar czf ../tampered.tar.gz .signatures.json .manifest data.json kubernetes)
expect_in "tampered file: digest mismatch" "$("$gavel" eval -b "$work/tampered.tar.gz" --verification-key "$work/pub.pem" data 2>&1)" "kubernetes/admission/policy.rego: digest mismatch"
expect_eq "excluded file is not verified" "$("$gavel" eval -b "$work/tampered.tar.gz" --verification-key "$work/pub.pem" --exclude-files-verify 'kubernetes/admission/policy.rego' --format raw data.kubernetes.config.word)" 'not allowed'
"$gavel" build -b "$work/signed.tar.gz" --verification-key "$work/pub.pem" --signing-key "$work/other.pem" -o "$work/resigned.tar.gz" && pass "rebuild: verify then re-sign" || fail "rebuild"
expect_in "rebuild: refuses a bad input signature" "$("$gavel" build -b "$work/tampered.tar.gz" --verification-key "$work/pub.pem" -o "$work/x.tar.gz" 2>&1)" "digest mismatch"
expect_in "signing needs -b" "$("$gavel" build "$src" --signing-key "$work/key.pem" -o "$work/x.tar.gz" 2>&1)" "enable bundle mode (ie. --bundle)"
"$gavel" build -b "$src" -o "$work/hs.tar.gz" --signing-key s3cret --signing-alg HS256 && pass "build signed (HS256)" || fail "build HS256"

# ---- OPA compatibility, both directions, by construction ----------------------------------------------------
python3 "$opa_format" make "$work/opa.tar.gz" s3cret
expect_eq "an OPA-format bundle loads and verifies in gavel" \
    "$("$gavel" eval -b "$work/opa.tar.gz" --verification-key s3cret --signing-alg HS256 --format raw 'data.example.allow with input.user as "alice"')" "true"
expect_in "an OPA-format bundle: wrong secret refused" \
    "$("$gavel" eval -b "$work/opa.tar.gz" --verification-key nope --signing-alg HS256 data 2>&1)" "failed to verify message: failed to match hmac signature"
expect_eq "gavel's signed bundle verifies as OPA's verifier does" "$(python3 "$opa_format" verify "$work/hs.tar.gz" s3cret)" "verified 4 files"

finish
