#!/usr/bin/env bash
# gavel serve with OPA's flag spellings (--tls-cert-file, --tls-private-key-file,
# --tls-ca-cert-file), --log-level and --log-format, and print() output as log
# lines that carry the decision's id.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

ossl() { openssl "$@" > /dev/null 2>&1 || { echo "openssl $* failed"; exit 1; }; }
newkey=(-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes)
ossl req -x509 "${newkey[@]}" -keyout "$work/ca.key" -out "$work/ca.pem" -days 2 -subj "/CN=gavel e2e CA"
ossl req "${newkey[@]}" -keyout "$work/server.key" -out "$work/server.csr" -subj "/CN=server"
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$work/server.ext"
ossl x509 -req -in "$work/server.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -out "$work/server.pem" -days 2 \
    -extfile "$work/server.ext"
ossl req "${newkey[@]}" -keyout "$work/client.key" -out "$work/client.csr" -subj "/CN=client"
ossl x509 -req -in "$work/client.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -out "$work/client.pem" -days 2

# ---- OPA's spellings of the TLS flags, print() as log lines ----------------------------------------
start_server opa --policies "$fx/printing" --tls-cert-file "$work/server.pem" --tls-private-key-file "$work/server.key" \
    --tls-ca-cert-file "$work/ca.pem" --decision-log || exit 1
review=$fx/reviews/pod-bad.json
code=$(curl -sS --cacert "$work/ca.pem" --cert "$work/client.pem" --key "$work/client.key" -o "$work/r.json" -w '%{http_code}' \
    --data-binary @"$review" "https://localhost:$opa_port/validate/kubernetes/printing")
expect_eq "--tls-cert-file/--tls-private-key-file serve, --tls-ca-cert-file admits a client certificate" "$code" 200
expect_eq "the policy decided" "$(json_get "$work/r.json" 'json.marshal(input.response.allowed)')" false
code=$(curl -sS --cacert "$work/ca.pem" -o /dev/null -w '%{http_code}' --data-binary @"$review" \
    "https://localhost:$opa_port/validate/kubernetes/printing" 2> /dev/null)
[[ $code != 200 ]] && pass "--tls-ca-cert-file: no client certificate, no answer" || fail "client certificate not required"
images=$(json_get "$review" 'count(input.request.object.spec.containers)')
grep '"msg":"checking ' "$opa_log" > "$work/prints"
expect_eq "print(): one log line per call" "$(wc -l < "$work/prints" | tr -d ' ')" "$images"
id=$(json_get "$opa_out" 'input.decision_id')
[[ $id =~ ^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$ ]] && pass "the decision log's id is a UUID" || fail "decision id [$id]"
expect_eq "print() lines carry the decision log's id" "$(grep -c "\"decision_id\":\"$id\"" "$work/prints")" "$images"
grep '"msg":"checking ' "$opa_log" | head -1 | grep -q '"level":"info"' && pass "print() lines are info" || fail "print level"
stop_server "$opa_pid"

# ---- --log-format text and --log-level ----------------------------------------------------------------
adm=$(free_port); rest=$(free_port); diag=$(free_port)
"$gavel" serve --policies "$fx/policies" --addr 127.0.0.1:$adm --rest-addr 127.0.0.1:$rest --diagnostic-addr 127.0.0.1:$diag \
    --log-format text > "$work/text.out" 2> "$work/text.log" &
pid=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$diag/health" > /dev/null 2>&1 && break; sleep 0.1; done
grep -qE '^time=[0-9T:.-]+Z level=info msg=listening listener=admission address=127\.0\.0\.1 port='"$adm"'( |$)' "$work/text.log" &&
    pass "--log-format text: logfmt lines" || { fail "--log-format text"; cat "$work/text.log"; }
grep -q '^{' "$work/text.log" && fail "--log-format text: a JSON line" || pass "--log-format text: no JSON lines"
stop_server "$pid"

"$gavel" serve --policies "$fx/policies" --addr 127.0.0.1:$adm --rest-addr 127.0.0.1:$rest --diagnostic-addr 127.0.0.1:$diag \
    --log-level warn --insecure-http > "$work/warn.out" 2> "$work/warn.log" &
pid=$!
ok=""
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$diag/health" > /dev/null 2>&1 && { ok=1; break; }; sleep 0.1; done
[[ -n $ok ]] && pass "--log-level warn: serving" || fail "--log-level warn: not serving"
grep -q '"level":"info"' "$work/warn.log" && fail "--log-level warn: info lines written" || pass "--log-level warn: no info lines"
grep -q "\"level\":\"warn\",\"msg\":\"serving plain HTTP" "$work/warn.log" && pass "--log-level warn: warnings still written" || { fail "--log-level warn: no warnings"; cat "$work/warn.log"; }
stop_server "$pid"

"$gavel" serve --log-level loud > /dev/null 2> "$work/bad.log"
status=$?
expect_eq "--log-level with a bad level: usage error" "$status" 1
grep -q -- '--log-level' "$work/bad.log" && pass "the error names --log-level" || { fail "bad level message"; cat "$work/bad.log"; }

# ---- --eval-memory-limit: a policy that takes too much memory gets a 500 denial, the server stays up ----
start_server hungry --policies "$fx/hungry" --ca-dump "$work/hungry-ca.pem" --eval-memory-limit 100Mi || exit 1
code=$(curl -sS --cacert "$work/hungry-ca.pem" -o "$work/r.json" -w '%{http_code}' --data-binary @"$fx/reviews/pod-bad.json" \
    "https://localhost:$hungry_port/validate/kubernetes/hungry")
expect_eq "--eval-memory-limit: answered" "$code" 200
expect_eq "--eval-memory-limit: denied with code 500" "$(json_get "$work/r.json" 'input.response.status.code')" 500
json_get "$work/r.json" 'input.response.status.message' | grep -q ': evaluation exceeded its memory limit (104857600 bytes)$' &&
    pass "--eval-memory-limit: the message says why (not that it timed out)" ||
    { fail "--eval-memory-limit message"; cat "$work/r.json"; }
curl -sf "http://127.0.0.1:$hungry_diag_port/health" > /dev/null && pass "--eval-memory-limit: still healthy" || fail "unhealthy after the limit"
rss=$(awk '/VmRSS/ {print $2}' /proc/$hungry_pid/status)
(( rss < 300000 )) && pass "--eval-memory-limit: RSS stays bounded (${rss} kB)" || fail "RSS ${rss} kB"
stop_server "$hungry_pid"

finish
