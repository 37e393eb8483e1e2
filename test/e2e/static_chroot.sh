#!/usr/bin/env bash
# The container image's final stage, without a container runtime: the root file
# system scripts/image-rootfs.sh lays out (as the Dockerfile does: the stripped
# static binary, the CA bundle, passwd/group, /tmp; no libc, no
# /usr/share/zoneinfo, no /proc, no /dev) plus the example policy at /policies,
# run as the image's user 65532 with its SSL_CERT_FILE. `eval` decides, time zones
# work (embedded tzdata), and the image's default command (`serve --policies
# /policies`) answers /health and an AdmissionReview over TLS.
# Skipped (exit 77) when not root, without chroot, or for a dynamic build.
source "$(dirname "$0")/lib.sh"
if [[ $(id -u) -ne 0 ]]; then echo "SKIP: chroot needs root"; exit 77; fi
chroot_bin=$(command -v chroot) || { echo "SKIP: no chroot"; exit 77; }
if readelf -l "$gavel" | grep -q 'program interpreter'; then echo "SKIP: $gavel is not statically linked (configure with -Dstatic=true)"; exit 77; fi

jail=$work/root
scripts/image-rootfs.sh "$jail" "$gavel" || { echo "image-rootfs.sh failed"; exit 1; }
mkdir -p "$jail/policies"
cp examples/admission-v1/image-registry.rego examples/admission-v1/pod.json "$jail/policies/"
echo "the image's root holds: $(cd "$jail" && find . -type f | sort | tr '\n' ' ')"
# As the image runs it: its user and environment (Dockerfile's USER and ENV).
run() { env -i SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt "$chroot_bin" --userspec=65532:65532 "$jail" "$@"; }

out=$(run /gavel eval -d /policies -i /policies/pod.json --format values data.kubernetes.admission.deny 2>&1)
echo "$out" | grep -q "image 'nginx' comes from untrusted registry" && pass "eval in the empty root" || fail "eval: $out"
out=$(run /gavel eval --format values 'time.clock([1710054000000000000, "America/New_York"])' 2>&1)
expect_eq "time zones from the embedded tzdata" "$(echo $out | tr -d ' \n')" "[[3,0,0]]"
out=$(run /gavel version 2>&1)
echo "$out" | grep -q '^Version:' && pass "version" || fail "version: $out"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then  # built from a git tree: it knows its commit
    echo "$out" | grep -q '^Build Commit: unknown' && fail "version: no commit ($out)" || pass "version names its commit"
fi

# Not through run(): $! must be the server itself (env and chroot exec it).
env -i SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt "$chroot_bin" --userspec=65532:65532 "$jail" /gavel serve --policies /policies --addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 --rest-addr off \
    > "$work/serve.out" 2> "$work/serve.log" &
pid=$!
for _ in $(seq 1 100); do [[ -n $(listener_port "$work/serve.log" admission) ]] && break; sleep 0.1; done
port=$(listener_port "$work/serve.log" admission)
diag=$(listener_port "$work/serve.log" diagnostic)
if [[ -z $port ]]; then fail "serve did not start: $(cat "$work/serve.log")"; else
    expect_eq "serve: /health" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$diag/health")" 200
    curl -sk -o "$work/r.json" --data-binary @examples/admission-v1/pod.json "https://127.0.0.1:$port/validate/kubernetes/admission"
    expect_eq "serve: an AdmissionReview over TLS (self-signed in the empty root)" "$(json_get "$work/r.json" "[input.response.allowed, input.response.status.code]" | tr -d " ")" "[false,403]"
    curl -s "http://127.0.0.1:$diag/metrics" > "$work/metrics.txt"
    grep -q '^gavel_build_info{' "$work/metrics.txt" && pass "serve: /metrics" || fail "serve: /metrics"
    kill -TERM "$pid"; wait "$pid"
    expect_eq "serve: SIGTERM exits 0" "$?" 0
fi

finish
