#!/usr/bin/env bash
# /metrics with OPA's families, as dashboards built for OPA read them, on both
# servers: http_request_duration_seconds{code,handler,method} with OPA's help
# text, default buckets and label values (handler "v1/data", method "get"),
# the authorizer recorded as handler "authz", buckets from OPA's configuration
# (server.metrics.prom.http_request_duration_seconds.buckets; bad ones refused
# at start), OPA's status plugin metrics (status.prometheus) against a local
# bundle service, and gavel's per-listener connection counters.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve
has_line() { if grep -qxF -- "$3" "$2"; then pass "$1"; else fail "$1: no line [$3]"; grep -F -- "${3%%\{*}" "$2" | head -5; fi; }
lacks() { if grep -q -- "$3" "$2"; then fail "$1: found [$3]"; else pass "$1"; fi; }

# ---- gavel serve: REST and admission requests, read on the diagnostic listener ------------------------
start_server m --policies "$fx/policies" --ca-dump "$work/ca.pem" || exit 1
rest="http://127.0.0.1:$m_rest_port"
diag="http://127.0.0.1:$m_diag_port"
c() { curl -sS -o /dev/null -w '%{http_code}' "$@"; }
expect_eq "rest: GET /v1/data" "$(c "$rest/v1/data")" 200
expect_eq "rest: PUT /v1/data/x" "$(c -X PUT --data-binary '{"a": 1}' "$rest/v1/data/x")" 204
expect_eq "rest: GET /v1/data/x" "$(c "$rest/v1/data/x")" 200
expect_eq "rest: Go's 404" "$(c "$rest/nope")" 404
expect_eq "admission" "$(c --cacert "$work/ca.pem" --data-binary @"$fx/reviews/pod-bad.json" "https://localhost:$m_port/validate/kubernetes/validating")" 200
expect_eq "diagnostic: /health" "$(c "$diag/health")" 200
curl -sS "$diag/metrics" > "$work/m.txt"

has_line "OPA's help text" "$work/m.txt" "# HELP http_request_duration_seconds A histogram of duration for requests."
has_line "OPA's type" "$work/m.txt" "# TYPE http_request_duration_seconds histogram"
# OPA's default buckets, labelled as OPA labels them.
got=$(grep '^http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",' "$work/m.txt" | sed -E 's/.*le="([^"]*)".*/\1/' | tr '\n' ' ')
expect_eq "v1/data GET: OPA's buckets" "$got" "1e-06 5e-06 1e-05 5e-05 0.0001 0.0005 0.001 0.01 0.1 1 +Inf "
has_line "v1/data GET: two requests" "$work/m.txt" 'http_request_duration_seconds_count{code="200",handler="v1/data",method="get"} 2'
has_line "v1/data PUT" "$work/m.txt" 'http_request_duration_seconds_count{code="204",handler="v1/data",method="put"} 1'
has_line "admission as its own handler" "$work/m.txt" 'http_request_duration_seconds_count{code="200",handler="validate",method="post"} 1'
has_line "diagnostic /health" "$work/m.txt" 'http_request_duration_seconds_count{code="200",handler="health",method="get"} 1'
lacks "Go's 404 is not an OPA handler's" "$work/m.txt" '^http_request_duration_seconds_count{code="404"'
lacks "no go_* families" "$work/m.txt" '^go_'
has_line "gavel's own counter stays" "$work/m.txt" 'gavel_http_requests_total{endpoint="/v1/data",decision="",code="204"} 1'
# Each listener's connections.
for l in admission rest diagnostic; do
    grep -q "^gavel_connections{listener=\"$l\",address=\"127.0.0.1:[0-9]*\"} [0-9]" "$work/m.txt" && pass "connections: $l" || fail "connections: $l"
    grep -q "^gavel_connections_refused_total{listener=\"$l\",address=\"127.0.0.1:[0-9]*\"} 0" "$work/m.txt" && pass "refused: $l" || fail "refused: $l"
    grep -q "^gavel_connections_evicted_total{listener=\"$l\",address=\"127.0.0.1:[0-9]*\"} 0" "$work/m.txt" && pass "evicted: $l" || fail "evicted: $l"
done
grep -q "^gavel_connections{listener=\"diagnostic\",address=\"127.0.0.1:$m_diag_port\"} [1-9]" "$work/m.txt" &&
    pass "the scrape's own connection is counted" || fail "the scrape's own connection is not counted"
stop_server "$m_pid"

# ---- gavel run --server: configured buckets, the authorizer, the status plugin's metrics ---------------
srv=$work/srv
mkdir -p "$srv" "$work/b/app"
python3 test/e2e/fixtures/bundles/bundle_server.py "$srv" &
for _ in $(seq 1 100); do [[ -f $srv/port ]] && break; sleep 0.1; done
echo '{"roots": ["app"]}' > "$work/b/.manifest"
printf 'package app\n\nallow := true\n' > "$work/b/app/app.rego"
"$gavel" build -b "$work/b" -o "$srv/app.tar.gz" --revision r1 || exit 1
printf 'package system.authz\n\ndefault allow := false\n\nallow if input.method != "DELETE"\n' > "$work/authz.rego"
cat > "$work/config.yaml" <<YAML
services:
  srv:
    url: http://127.0.0.1:$(cat "$srv/port")
bundles:
  app:
    service: srv
    resource: bundles/app
    polling: {min_delay_seconds: 1, max_delay_seconds: 2}
status:
  prometheus: true
server:
  metrics:
    prom:
      http_request_duration_seconds:
        buckets: [0.001, 0.5, 2]
YAML
"$gavel" run --server --addr 127.0.0.1:0 -c "$work/config.yaml" --authorization=basic "$work/authz.rego" > "$work/run.out" 2> "$work/run.log" &
run_pid=$!
for _ in $(seq 1 100); do port=$(listener_port "$work/run.log" api); [[ -n $port ]] && break; sleep 0.1; done
api="http://127.0.0.1:${port:-0}"
for _ in $(seq 1 100); do [[ $(c "$api/health") == 200 ]] && break; sleep 0.1; done
expect_eq "run: ready once the bundle is active" "$(c "$api/health")" 200
expect_eq "run: GET /v1/data/app/allow" "$(c "$api/v1/data/app/allow")" 200
expect_eq "run: DELETE refused by system.authz" "$(c -X DELETE "$api/v1/data/x")" 401
curl -sS "$api/metrics" > "$work/r.txt"
got=$(grep '^http_request_duration_seconds_bucket{code="200",handler="v1/data",method="get",' "$work/r.txt" | sed -E 's/.*le="([^"]*)".*/\1/' | tr '\n' ' ')
expect_eq "run: the configured buckets" "$got" "0.001 0.5 2 +Inf "
has_line "run: the authorizer as a handler" "$work/r.txt" 'http_request_duration_seconds_count{code="401",handler="authz",method="delete"} 1'
lacks "run: a refused request never reaches v1/data" "$work/r.txt" 'handler="v1/data",method="delete"'
has_line "run: opa_info (gavel's version)" "$work/r.txt" 'opa_info{version="'"$("$gavel" version | sed -n 's/^Version: //p')"'"} 1'
grep -q '^bundle_loaded_counter{name="app"} [1-9]' "$work/r.txt" && pass "run: bundle_loaded_counter" || fail "run: bundle_loaded_counter"
grep -q '^last_success_bundle_activation{active_revision="r1",name="app"} 1\.[0-9]*e+18$' "$work/r.txt" && pass "run: last activation (Unix ns)" ||
    fail "run: last_success_bundle_activation"
grep -q '^bundle_loading_duration_ns_bucket{name="app",stage="timer_bundle_request_ns",le="5.24288e+08"} [1-9]' "$work/r.txt" &&
    pass "run: bundle_loading_duration_ns in OPA's buckets" || fail "run: bundle_loading_duration_ns"
has_line "run: plugin_status_gauge" "$work/r.txt" 'plugin_status_gauge{name="bundle",status="OK"} 1'
grep -q '^gavel_connections{listener="api",address="127.0.0.1:'"$port"'"} [0-9]' "$work/r.txt" && pass "run: connections" || fail "run: connections"
kill -TERM "$run_pid"; wait "$run_pid" 2>/dev/null

# Buckets that are not increasing: OPA would panic on every request; gavel does not start.
sed -i 's/buckets: \[0.001, 0.5, 2\]/buckets: [0.5, 0.1]/' "$work/config.yaml"
"$gavel" run --server --addr 127.0.0.1:0 -c "$work/config.yaml" > /dev/null 2> "$work/bad.log"
expect_eq "run: bad buckets refused (exit 1)" "$?" 1
expect_eq "run: the message" "$(cat "$work/bad.log")" \
    "gavel run: server metrics configuration parse error: server.metrics.prom.http_request_duration_seconds.buckets: histogram buckets must be in increasing order: 0.500000 >= 0.100000"

finish
