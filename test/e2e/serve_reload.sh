#!/usr/bin/env bash
# gavel serve hot reload: a good policy or data change takes effect; a broken
# policy keeps the last good program, is logged with file:line:col and counted;
# invalid policies at start fail startup.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

mkdir -p "$work/policies" "$work/data/config"
# put FILE: stdin becomes FILE at once (written beside, then renamed), so the
# watcher never sees a half-written file and every count below is exact.
put() { cat > "$work/.staging" && mv "$work/.staging" "$1"; }
policy() {  # PREFIX: a registry policy whose messages start with PREFIX
    put "$work/policies/registry.rego" <<REGO
package kubernetes.registry

deny contains msg if {
	some container in input.request.object.spec.containers
	not startswith(container.image, data.config.registry)
	msg := sprintf("$1: image '%v' is not from %v", [container.image, data.config.registry])
}
REGO
}
policy v1
echo '{"registry": "hooli.com/"}' > "$work/data/config/data.json"

start_server live --policies "$work/policies" --data "$work/data" --insecure-http --reload-interval 100ms || exit 1
url="http://127.0.0.1:$live_port/validate/kubernetes/registry"
message() { curl -sS --data-binary @"$fx/reviews/pod-good.json" "$url" -o "$work/r.json"; json_get "$work/r.json" 'object.get(input.response, ["status", "message"], "allowed")'; }
bad_message() { curl -sS --data-binary @"$fx/reviews/pod-bad.json" "$url" -o "$work/r.json"; json_get "$work/r.json" 'object.get(input.response, ["status", "message"], "allowed")'; }
metric() { curl -sS "http://127.0.0.1:$live_diag_port/metrics" | grep "^gavel_reloads_total{status=\"$1\"}" | cut -d' ' -f2; }
# wait_for CMD WANT: polls CMD until it prints WANT (10 s: CI machines are busy)
wait_for() {
    local got=""
    for _ in $(seq 1 100); do got=$($1); [[ $got == "$2" ]] && break; sleep 0.1; done
    echo "$got"
}

expect_eq "initial decision" "$(bad_message)" "v1: image 'mysql' is not from hooli.com/, v1: image 'nginx' is not from hooli.com/"
expect_eq "initial load counted" "$(metric success)" 1
hash1=$(curl -sS "http://127.0.0.1:$live_diag_port/metrics" | grep '^gavel_config_info')

policy v2
expect_eq "good policy change -> new decision" "$(wait_for bad_message "v2: image 'mysql' is not from hooli.com/, v2: image 'nginx' is not from hooli.com/")" \
    "v2: image 'mysql' is not from hooli.com/, v2: image 'nginx' is not from hooli.com/"
expect_eq "reload counted" "$(metric success)" 2
hash2=$(curl -sS "http://127.0.0.1:$live_diag_port/metrics" | grep '^gavel_config_info')
[[ $hash1 != "$hash2" ]] && pass "config hash changed" || fail "config hash did not change"

echo '{"registry": "docker.io/"}' | put "$work/data/config/data.json"
expect_eq "data change -> new decision" "$(wait_for message "v2: image 'hooli.com/web:1.2' is not from docker.io/")" \
    "v2: image 'hooli.com/web:1.2' is not from docker.io/"

printf 'package kubernetes.registry\n\ndeny contains msg if {\n\tmsg := \n}\n' | put "$work/policies/registry.rego"
expect_eq "broken policy counted as failure" "$(wait_for "metric failure" 1)" 1
expect_eq "broken policy: last good decision kept" "$(message)" "v2: image 'hooli.com/web:1.2' is not from docker.io/"
grep -q "registry.rego:[0-9]*:[0-9]*: rego_parse_error" "$live_log" && pass "broken policy logged with file:line:col" || { fail "reload error not logged"; cat "$live_log"; }
sleep 0.3
expect_eq "broken content counted once" "$(metric failure)" 1

printf 'package kubernetes.registry\n\ndeny contains msg if {\n\tx > 1\n\tmsg := "m"\n}\n' | put "$work/policies/registry.rego"
expect_eq "compile error counted as failure" "$(wait_for "metric failure" 2)" 2
expect_eq "compile error: last good decision kept" "$(message)" "v2: image 'hooli.com/web:1.2' is not from docker.io/"

policy v3
expect_eq "fixed policy reloads" "$(wait_for message "v3: image 'hooli.com/web:1.2' is not from docker.io/")" \
    "v3: image 'hooli.com/web:1.2' is not from docker.io/"
rm "$work/policies/registry.rego"
gone="policy evaluation failed: no policy defines package data.kubernetes.registry"
expect_eq "removed policy -> its package is gone" "$(wait_for message "$gone")" "$gone"
stop_server "$live_pid"

# inotify: with polling every 60 s, a change still takes effect at once.
policy v4
start_server notify --policies "$work/policies" --data "$work/data" --insecure-http --reload-interval 60s || exit 1
url="http://127.0.0.1:$notify_port/validate/kubernetes/registry"
expect_eq "inotify: initial" "$(message)" "v4: image 'hooli.com/web:1.2' is not from docker.io/"
policy v5
expect_eq "inotify: change seen without polling" "$(wait_for message "v5: image 'hooli.com/web:1.2' is not from docker.io/")" \
    "v5: image 'hooli.com/web:1.2' is not from docker.io/"
stop_server "$notify_pid"
rm "$work/policies/registry.rego"

# Invalid policies at start: no server, the errors on stderr, exit 1.
printf 'package broken\n\np if {\n' > "$work/policies/broken.rego"
"$gavel" serve --policies "$work/policies" --insecure-http --addr 127.0.0.1:0 > /dev/null 2> "$work/start.err"
status=$?
expect_eq "invalid policy at start: exit 1" "$status" 1
grep -q "broken.rego:[0-9]*:[0-9]*: rego_parse_error" "$work/start.err" && pass "invalid policy at start: file:line:col" || { fail "startup error missing location"; cat "$work/start.err"; }

finish
