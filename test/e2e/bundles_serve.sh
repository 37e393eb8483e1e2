#!/usr/bin/env bash
# gavel serve with OPA's configuration file against a local bundle / decision-log /
# status service (fixtures/bundles/bundle_server.py, loopback only): two replicas
# activate the same signed revision, a new revision reaches both within the polling
# delay, a corrupt or wrongly signed bundle is refused while the last good one keeps
# serving, readiness waits for the first activation, a persisted bundle serves after a
# restart without the service, and the decision-log service receives every decision
# exactly once with distinct ids. Bundles are made here by `gavel build`; then bundles a
# real `opa build` made (fixtures/bundles/opa_signed/), plain and signed, get OPA's answers
# and OPA's errors.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
expect_in() { if [[ "$2" == *"$3"* ]]; then pass "$1"; else fail "$1: [$2] lacks [$3]"; fi; }

srv=$work/srv
mkdir -p "$srv"
python3 test/e2e/fixtures/bundles/bundle_server.py "$srv" &
for _ in $(seq 1 100); do [[ -f $srv/port ]] && break; sleep 0.1; done
port=$(cat "$srv/port")

openssl genrsa -out "$work/key.pem" 2048 2>/dev/null
openssl rsa -in "$work/key.pem" -pubout -out "$work/pub.pem" 2>/dev/null
openssl genrsa -out "$work/other.pem" 2048 2>/dev/null

# make_bundle REVISION [KEY]: a signed bundle whose data says its revision.
make_bundle() {
    local dir=$work/src-$1
    mkdir -p "$dir/app" "$dir/appdata"
    echo '{"roots": ["app", "appdata"]}' > "$dir/.manifest"
    cat > "$dir/app/policy.rego" <<'REGO'
package app

deny contains msg if {
	input.request.object.metadata.name == "bad"
	msg := sprintf("bad name (revision %v)", [data.appdata.rev])
}
REGO
    echo "{\"rev\": \"$1\"}" > "$dir/appdata/data.json"
    "$gavel" build -b "$dir" -o "$work/$1.tar.gz" --revision "$1" --signing-key "${2:-$work/key.pem}"
}
# serve FILE: what the bundle service answers from now on (renamed in, never half written).
serve() { cp "$1" "$srv/.staging" && mv "$srv/.staging" "$srv/authz.tar.gz"; }

make_bundle r1 || exit 1
make_bundle r2 || exit 1
make_bundle r3 "$work/other.pem" || exit 1   # signed with a key the servers do not trust

cat > "$work/config.yaml" <<YAML
services:
  srv:
    url: http://127.0.0.1:$port
    headers:
      X-Test: gavel
bundles:
  authz:
    service: srv
    resource: bundles/authz
    polling:
      min_delay_seconds: 1
      max_delay_seconds: 2
    signing:
      keyid: k
keys:
  k:
    algorithm: RS256
    key: |
$(sed 's/^/      /' "$work/pub.pem")
decision_logs:
  service: srv
  reporting:
    min_delay_seconds: 1
    max_delay_seconds: 2
status:
  service: srv
labels:
  cluster: e2e
YAML

rev_of() {  # NAME: the revision the replica serves (from its data), via the REST API
    local p; p=${1}_rest_port
    # (decision logs are on: drop the decision id)
    curl -s "http://127.0.0.1:${!p}/v1/data/appdata/rev" | sed -E 's/"decision_id":"[^"]*",?//'
}
ready_code() { local p; p=${1}_diag_port; curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${!p}/health?bundles"; }
wait_for() {  # SECONDS COMMAND...: until COMMAND succeeds
    local n=$(( $1 * 10 )); shift
    for _ in $(seq 1 "$n"); do "$@" && return 0; sleep 0.1; done
    return 1
}
both_at() { [[ $(rev_of a) == "{\"result\":\"$1\"}" && $(rev_of b) == "{\"result\":\"$1\"}" ]]; }

# ---- readiness waits for the first activation -------------------------------------------------------------
start_server a --insecure-http -c "$work/config.yaml" || exit 1
expect_eq "not ready before the bundle exists (OPA's 500)" "$(ready_code a)" 500
serve "$work/r1.tar.gz"
start_server b --insecure-http -c "$work/config.yaml" || exit 1
wait_for 10 both_at r1 && pass "both replicas activate r1" || fail "both replicas activate r1: $(rev_of a) $(rev_of b)"
expect_eq "ready once activated (a)" "$(ready_code a)" 200
expect_eq "ready once activated (b)" "$(ready_code b)" 200
grep -q '"revision":"r1"' "$a_log" && pass "activation logged with its revision" || fail "activation logged"
grep -q 'If-None-Match\|GET /bundles/authz 304' "$srv/requests.log" && pass "polls answered 304 (ETag)" || {
    sleep 3; grep -q 'GET /bundles/authz 304' "$srv/requests.log" && pass "polls answered 304 (ETag)" || fail "no 304"; }
diag_a=http://127.0.0.1:$a_diag_port
curl -s "$diag_a/metrics" > "$work/metrics.txt"
grep -q '^gavel_bundle_downloads_total{name="authz",code="200"} [1-9]' "$work/metrics.txt" && pass "metrics: downloads" || fail "metrics: downloads"
grep -q '^gavel_bundle_activations_total{name="authz",status="success"} 1' "$work/metrics.txt" && pass "metrics: activations" || fail "metrics: activations"
wait_for 5 grep -q '"active_revision":"r1"' "$srv/status.json" && pass "status report: active revision" || fail "status report"
grep -q '"cluster":"e2e"' "$srv/status.json" && pass "status report: labels" || fail "status labels"

# ---- decisions on both replicas (admission and /v1/data) ---------------------------------------------------
review() {  # NAME: an AdmissionReview for a Pod called NAME
    echo "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{\"uid\":\"u-$1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":\"Pod\"},\"operation\":\"CREATE\",\"object\":{\"metadata\":{\"name\":\"$1\"}}}}"
}
decisions=0
for i in 1 2 3 4 5; do
    for r in a b; do
        p=${r}_port
        out=$(review bad | curl -s "http://127.0.0.1:${!p}/validate/app" --data-binary @-)
        [[ $i == 1 && $r == a ]] && { [[ $out == *'bad name (revision r1)'* ]] && pass "admission denies with r1" || fail "admission: $out"; }
        decisions=$((decisions + 1))
    done
done
curl -s -X POST "http://127.0.0.1:$a_rest_port/v1/data/app/deny" -d '{"input":{"request":{"object":{"metadata":{"name":"bad"}}}}}' > /dev/null
decisions=$((decisions + 1))

# ---- a new revision reaches both within the polling delay --------------------------------------------------
serve "$work/r2.tar.gz"
wait_for 6 both_at r2 && pass "r2 reaches both replicas within the polling delay" || fail "r2: $(rev_of a) $(rev_of b)"

# ---- corrupt and wrongly signed bundles are refused; r2 keeps serving ---------------------------------------
head -c 300 "$work/r1.tar.gz" > "$work/corrupt.tar.gz"
serve "$work/corrupt.tar.gz"
wait_for 8 grep -q 'gzip: unexpected EOF\|truncated' "$a_log" && pass "corrupt bundle refused (logged)" || fail "corrupt bundle not reported"
both_at r2 && pass "r2 still serves after the corrupt bundle" || fail "after corrupt: $(rev_of a)"
serve "$work/r3.tar.gz"
wait_for 8 grep -q 'failed to verify message: crypto/rsa: verification error' "$b_log" && pass "wrongly signed bundle refused (logged)" || fail "wrong signature not reported"
both_at r2 && pass "r2 still serves after the wrongly signed bundle" || fail "after wrong signature: $(rev_of b)"
wait_for 5 grep -q '"code":"bundle_error"' "$srv/status.json" && pass "status report: the error" || fail "status: no error"
curl -s "$diag_a/metrics" | grep -q '^gavel_bundle_activations_total{name="authz",status="failure"} [1-9]' &&
    pass "metrics: failed activations" || fail "metrics: failed activations"

# ---- decision logs: every decision once, distinct ids (servers flush at shutdown) -----------------------------
stop_server "$a_pid"
stop_server "$b_pid"
[[ -f $srv/logs.jsonl ]] || touch "$srv/logs.jsonl"
# The REST reads of data.appdata.rev above are decisions too (OPA logs /v1/data), so
# the admission and app/deny ones are counted by path; ids must be distinct across all.
got=$(grep -c '"path": "app\(/deny\)\?"' "$srv/logs.jsonl")
expect_eq "decision-log service got every decision" "$got" "$decisions"
ids=$(grep -o '"decision_id": "[^"]*"' "$srv/logs.jsonl" | sort -u | wc -l)
expect_eq "decision ids are distinct" "$ids" "$(wc -l < "$srv/logs.jsonl")"
grep -q '"path": "app"' "$srv/logs.jsonl" && pass "decision log: path" || fail "decision log: path"
grep -q '"bundles": {"authz": {"revision": "r1"}}' "$srv/logs.jsonl" && pass "decision log: bundle revision" || fail "decision log: bundles"
grep -q '"requested_by": "127.0.0.1:' "$srv/logs.jsonl" && pass "decision log: requested_by" || fail "decision log: requested_by"
grep -q '"labels": {.*"cluster": "e2e"' "$srv/logs.jsonl" && pass "decision log: labels" || fail "decision log: labels"

# ---- decision-log service down: events are kept and sent once it is back ------------------------------------
serve "$work/r2.tar.gz"
: > "$srv/logs.jsonl"
touch "$srv/logs.fail"
start_server c --insecure-http -c "$work/config.yaml" || exit 1
wait_for 10 bash -c "curl -s http://127.0.0.1:$c_rest_port/v1/data/appdata/rev | grep -q r2" && pass "replica c at r2" || fail "replica c"
for i in 1 2 3; do review bad | curl -s "http://127.0.0.1:$c_port/validate/app" --data-binary @- > /dev/null; done
wait_for 8 grep -q 'decision log upload failed' "$c_log" && pass "upload failure logged, events kept" || fail "upload failure not logged"
rm -f "$srv/logs.fail"
wait_for 10 bash -c "[[ \$(grep -c '\"path\": \"app\"' '$srv/logs.jsonl') -ge 3 ]]" && pass "kept events uploaded once the service is back" || fail "kept events not uploaded"
stop_server "$c_pid"
expect_eq "each kept event sent once" "$(grep -c '"path": "app"' "$srv/logs.jsonl")" 3

# ---- persist: a restart serves the last bundle before the service answers -----------------------------------
cat "$work/config.yaml" > "$work/persist.yaml"
sed -i 's/^    resource: bundles\/authz/    resource: bundles\/authz\n    persist: true/' "$work/persist.yaml"
echo "persistence_directory: $work/persist" >> "$work/persist.yaml"
start_server d --insecure-http -c "$work/persist.yaml" || exit 1
wait_for 10 bash -c "curl -s http://127.0.0.1:$d_rest_port/v1/data/appdata/rev | grep -q r2" && pass "persisting replica at r2" || fail "replica d"
stop_server "$d_pid"
[[ -s $work/persist/bundles/authz/bundle.tar.gz ]] && pass "bundle persisted to disk" || fail "nothing persisted"
rm -f "$srv/authz.tar.gz"   # the service now answers 404
start_server e --insecure-http -c "$work/persist.yaml" || exit 1
expect_eq "restart serves the persisted revision at once" "$(rev_of e)" '{"result":"r2"}'
expect_eq "ready from the persisted bundle" "$(ready_code e)" 200
stop_server "$e_pid"

# ---- bundles a real `opa build` signed (fixtures/bundles/opa_signed/), from the bundle service ---------------
# The answers and errors below were recorded from `opa run --server -c` on the same configurations.
ofx=test/e2e/fixtures/bundles/opa_signed
cp "$ofx/rsa.tar.gz" "$srv/opa_signed.tar.gz"
cp "$ofx/plain.tar.gz" "$srv/opa_plain.tar.gz"
python3 - "$ofx/rsa.tar.gz" "$srv/opa_tampered.tar.gz" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    files = {m.name: t.extractfile(m).read() for m in t.getmembers() if m.isfile()}
files["/data.json"] = files["/data.json"].replace(b"refused", b"accepted")
with tarfile.open(sys.argv[2], "w:gz", format=tarfile.USTAR_FORMAT) as t:
    for name, data in files.items():
        info = tarfile.TarInfo(name)
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
PY
# opa_config RESOURCE SIGNING KEYS: a configuration for one bundle, "opa", from bundles/RESOURCE.
opa_config() {
    printf 'services:\n  srv:\n    url: http://127.0.0.1:%s\nbundles:\n  opa:\n    service: srv\n    resource: bundles/%s\n' "$port" "$1"
    printf '    polling:\n      min_delay_seconds: 1\n      max_delay_seconds: 2\n'
    [[ -n $2 ]] && printf '    signing:\n      keyid: rsa\n'
    [[ -n $3 ]] && { printf 'keys:\n  rsa:\n    algorithm: RS256\n    key: |\n'; sed 's/^/      /' "$ofx/keys/rsa_public.pem"; }
    return 0
}
opa_rest() {  # NAME PATH [INPUT]: GET, or POST {"input": INPUT}, against the replica's REST API
    local p; p=${1}_rest_port
    if [[ -n ${3:-} ]]; then curl -s -X POST "http://127.0.0.1:${!p}/v1/data/$2" -d "{\"input\": $3}"
    else curl -s "http://127.0.0.1:${!p}/v1/data/$2"; fi
}
bad='{"request":{"object":{"metadata":{"name":"bad"}}}}'
good='{"request":{"object":{"metadata":{"name":"good"}}}}'
for case in signed plain; do
    opa_config "opa_$case" "$([[ $case == signed ]] && echo yes)" "$([[ $case == signed ]] && echo yes)" > "$work/opa_$case.yaml"
    start_server "o$case" --insecure-http -c "$work/opa_$case.yaml" || exit 1
    wait_for 10 bash -c "[[ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$(eval echo "\$o${case}_diag_port")/health?bundles) == 200 ]]" ||
        fail "OPA's $case bundle from the service: not activated"
    expect_eq "OPA's $case bundle from the service: data as OPA's" "$(opa_rest "o$case" appdata)" '{"result":{"n":1.50,"word":"refused"}}'
    expect_eq "OPA's $case bundle from the service: deny as OPA's" "$(opa_rest "o$case" app/deny "$bad")" '{"result":["bad name (refused)"]}'
    expect_eq "OPA's $case bundle from the service: allow as OPA's" "$(opa_rest "o$case" app/deny "$good")" '{"result":[]}'
    p=o${case}_port
    expect_in "OPA's $case bundle from the service: admission decision" \
        "$(review bad | curl -s "http://127.0.0.1:${!p}/validate/app" --data-binary @-)" 'bad name (refused)'
    stop_server "$(eval echo \$o${case}_pid)"
done
# opa_error NAME RESOURCE SIGNING KEYS TEXT: the bundle is refused, logged with OPA's text, nothing served.
opa_error() {
    opa_config "$2" "$3" "$4" > "$work/opa_$1.yaml"
    start_server "$1" --insecure-http -c "$work/opa_$1.yaml" || return
    local log; log=${1}_log
    wait_for 8 grep -qF "$5" "${!log}" && pass "OPA-signed bundle from the service: $1 refused with OPA's text" ||
        fail "$1: no [$5] in $(grep -o '"error":"[^"]*"' "${!log}" | head -1)"
    expect_eq "$1: nothing served" "$(opa_rest "$1" appdata)" '{}'
    stop_server "$(eval echo \$${1}_pid)"
}
opa_error tampered opa_tampered yes yes \
    "data.json: digest mismatch (want: c6de098dacdaac5bdc0217bee75c2a2da36999215be6c73d484ebe3d179ec4f4, got: a72454c90cd21d80887584398d8fb140869ff2538143caae1422c34ff0a484d7)"
# Without a signing section, configured keys still verify a signed bundle, by its kid ("default" here).
opa_error keys_only opa_signed "" yes "verification key corresponding to ID default not found"
opa_error no_keys opa_signed "" "" "verification key not provided"
opa_error unsigned opa_plain yes yes "bundle missing .signatures.json file"

# ---- configuration errors are reported, not ignored -----------------------------------------------------------
# (Unknown top-level keys are kept, as OPA keeps them; a misspelt key inside OPA's sections is an error.)
printf 'services:\n  s:\n    url: http://127.0.0.1:1\n    credentails: {}\nbundlez: {}\n' > "$work/bad.yaml"
out=$("$gavel" serve --insecure-http --addr 127.0.0.1:0 -c "$work/bad.yaml" 2>&1)
[[ $out == *"unknown configuration key services.s.credentails"* && $out != *"bundlez"* ]] &&
    pass "unknown keys in OPA's sections are errors" || fail "unknown keys: $out"
out=$("$gavel" serve --insecure-http --addr 127.0.0.1:0 -c "$work/config.yaml" --set bundles.authz.service=nope 2>&1)
[[ $out == *'invalid service name "nope"'* ]] && pass "--set overrides the file" || fail "--set: $out"

finish
