#!/usr/bin/env bash
# gavel serve TLS end to end: certificate files and their rotation, the
# self-signed certificate and --ca-dump, mTLS accepted and refused, TLS 1.2+ only.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

ossl() { openssl "$@" > /dev/null 2>&1 || { echo "openssl $* failed"; exit 1; }; }
newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
ossl req -x509 "${newkey[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj "/CN=gavel e2e CA"
ossl req -x509 "${newkey[@]}" -keyout "$work/rogue.key" -out "$work/rogue.pem" -days 2 -subj "/CN=rogue CA"
# sign NAME SUBJECT CA [EXT]: a key and a certificate signed by CA
sign() {
    ossl req "${newkey[@]}" -keyout "$work/$1.key" -out "$work/$1.csr" -subj "$2"
    printf '%s\n' "${4:-basicConstraints=CA:FALSE}" > "$work/$1.ext"
    ossl x509 -req -in "$work/$1.csr" -CA "$work/$3.pem" -CAkey "$work/$3.key" -CAcreateserial \
        -out "$work/$1.pem" -days 2 -extfile "$work/$1.ext"
}
sign server "/CN=first" ca "subjectAltName=DNS:localhost,IP:127.0.0.1"
sign server2 "/CN=rotated" ca "subjectAltName=DNS:localhost,IP:127.0.0.1"
sign client "/O=gavel-e2e/CN=test-client" ca
sign intruder "/CN=intruder" rogue
cp "$work/server.pem" "$work/tls.crt"
cp "$work/server.key" "$work/tls.key"

start_server mtls --policies "$fx/policies" --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" \
    --client-ca "$work/ca.pem" --input-http || exit 1
base="https://localhost:$mtls_port"
c() { curl -sS --cacert "$work/ca.pem" "$@"; }

code=$(c -o "$work/r.json" -w '%{http_code}' --cert "$work/client.pem" --key "$work/client.key" \
    --data-binary @"$fx/reviews/pod-good.json" "$base/validate/kubernetes/whoami")
expect_eq "mTLS: client certificate accepted" "$code" 200
expect_eq "mTLS: subject in input.http" "$(json_get "$work/r.json" input.response.status.message)" "client CN=test-client,O=gavel-e2e"
if c -o /dev/null "$base/health" 2> /dev/null; then fail "mTLS: no client certificate was accepted"; else pass "mTLS: no client certificate refused"; fi
if c -o /dev/null --cert "$work/intruder.pem" --key "$work/intruder.key" "$base/health" 2> /dev/null; then
    fail "mTLS: certificate from another CA was accepted"; else pass "mTLS: certificate from another CA refused"; fi
if c -o /dev/null --cert "$work/client.pem" --key "$work/client.key" --tlsv1.0 --tls-max 1.1 "$base/health" 2> /dev/null; then
    fail "TLS 1.1 was accepted"; else pass "TLS below 1.2 refused"; fi

subject() { openssl s_client -connect "127.0.0.1:$mtls_port" -servername localhost -cert "$work/client.pem" -key "$work/client.key" \
    < /dev/null 2> /dev/null | openssl x509 -noout -subject 2> /dev/null; }
expect_eq "serving the given certificate" "$(subject)" "subject=CN = first"
# Rotation as cert-manager does it: new files in place; new connections get the new certificate.
cp "$work/server2.key" "$work/tls.key"
cp "$work/server2.pem" "$work/tls.crt"
got=""
for _ in $(seq 1 40); do got=$(subject); [[ $got == "subject=CN = rotated" ]] && break; sleep 0.1; done
expect_eq "certificate rotated without restart" "$got" "subject=CN = rotated"
code=$(c -o /dev/null -w '%{http_code}' --cert "$work/client.pem" --key "$work/client.key" \
    --data-binary @"$fx/reviews/pod-good.json" "$base/validate/kubernetes/whoami")
expect_eq "serving after rotation" "$code" 200
# Kubelet probes carry no client certificate: the diagnostic listener is plain HTTP.
expect_eq "mTLS: probes answered on the diagnostic listener" \
    "$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mtls_diag_port/health/ready")" 200
stop_server "$mtls_pid"

# Self-signed for the given names, written out for caBundle.
start_server self --policies "$fx/policies" --tls-san webhook.gavel.svc,127.0.0.1 --ca-dump "$work/dump.pem" || exit 1
sans=$(openssl x509 -in "$work/dump.pem" -noout -ext subjectAltName 2> /dev/null | tail -1 | tr -d ' ')
expect_eq "self-signed: SANs" "$sans" "DNS:webhook.gavel.svc,IPAddress:127.0.0.1"
code=$(curl -sS -o /dev/null -w '%{http_code}' --cacert "$work/dump.pem" --resolve "webhook.gavel.svc:$self_port:127.0.0.1" \
    --data-binary @"$fx/reviews/pod-good.json" "https://webhook.gavel.svc:$self_port/validate/kubernetes/validating")
expect_eq "self-signed: verifies with the dumped CA" "$code" 200
stop_server "$self_pid"

finish
