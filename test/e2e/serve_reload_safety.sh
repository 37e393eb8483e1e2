#!/usr/bin/env bash
# gavel serve reloads that fail safe:
#   * symbolic link cycles below --policies (and --gatekeeper) neither stop the
#     start nor later reloads; each is logged once as a warning naming the link;
#   * out of file descriptors (idle connections up to the soft limit), a reload
#     fails, logged as an error with the path and the error, and the last good
#     policies keep serving (they used to be replaced by an empty set);
#   * eval, test and check with a cycle end, with an error naming the link.
source "$(dirname "$0")/lib.sh"
fx=test/e2e/fixtures/serve

put() { cat > "$work/.staging" && mv "$work/.staging" "$1"; }
policy() {  # DIR VERSION: a registry policy whose messages start with VERSION
    put "$1/registry.rego" <<REGO
package kubernetes.registry

deny contains msg if {
	some container in input.request.object.spec.containers
	not startswith(container.image, "hooli.com/")
	msg := sprintf("$2: image '%v' is not from hooli.com/", [container.image])
}
REGO
}
want() { echo "$1: image 'mysql' is not from hooli.com/, $1: image 'nginx' is not from hooli.com/"; }
bad_message() {  # PORT
    curl -sS --data-binary @"$fx/reviews/pod-bad.json" "http://127.0.0.1:$1/validate/kubernetes/registry" -o "$work/r.json"
    json_get "$work/r.json" 'object.get(input.response, ["status", "message"], "allowed")'
}
wait_for() {  # CMD WANT: polls CMD until it prints WANT (10 s)
    local got=""
    for _ in $(seq 1 100); do got=$($1); [[ $got == "$2" ]] && break; sleep 0.1; done
    echo "$got"
}
metric() { curl -sS "http://127.0.0.1:$1/metrics" | grep "^gavel_reloads_total{status=\"$2\"}" | cut -d' ' -f2; }

# --- Link cycles: at start, and made later ---------------------------------------
cycles() {
    p=$work/cycles
    mkdir -p "$p/sub"
    policy "$p" v1
    ln -s . "$p/self"
    ln -s .. "$p/sub/up"
    start_server cyc --policies "$p" --insecure-http --reload-interval 100ms || { fail "cycles: the server did not start"; return; }
    expect_eq "cycles at start: serving" "$(bad_message "$cyc_port")" "$(want v1)"
    sleep 0.5  # a few polls
    expect_eq "cycle logged once, naming the link (self)" \
        "$(grep "symbolic link cycle skipped" "$cyc_log" | grep -c "\"cycle\":\"$p/self: directory cycle")" 1
    expect_eq "cycle logged once, naming the link (sub/up)" \
        "$(grep "symbolic link cycle skipped" "$cyc_log" | grep -c "\"cycle\":\"$p/sub/up: directory cycle")" 1
    mkdir -p "$p/later"
    ln -s ../later "$p/later/loop"
    policy "$p" v2
    expect_eq "a cycle made later: changes still served" "$(wait_for "bad_message $cyc_port" "$(want v2)")" "$(want v2)"
    expect_eq "the later cycle logged once" "$(grep -c "\"cycle\":\"$p/later/loop: directory cycle" "$cyc_log")" 1
    expect_eq "no reload failed" "$(grep -c 'reload failed' "$cyc_log")" 0
    stop_server "$cyc_pid"
}
cycles

# Gatekeeper directories too.
gatekeeper_cycles() {
    g=$work/gatekeeper
    mkdir -p "$g/nested"
    cp examples/gatekeeper/required-annotations/template.yaml examples/gatekeeper/required-annotations/constraint.yaml "$g/"
    ln -s .. "$g/nested/up"
    start_server gk --gatekeeper "$g" --insecure-http --reload-interval 100ms || { fail "gatekeeper: the server did not start"; return; }
    pass "gatekeeper: a cycle does not stop the start"
    expect_eq "gatekeeper: the cycle logged once, naming the link" \
        "$(grep -c "\"cycle\":\"$g/nested/up: directory cycle" "$gk_log")" 1
    stop_server "$gk_pid"
}
gatekeeper_cycles

# --- Out of file descriptors ----------------------------------------------------
out_of_descriptors() {
    # The server runs with a limit of 64 descriptors (hard as well: gavel raises its soft
    # limit to the hard one); idle connections take them all.
    p=$work/fd
    mkdir -p "$p"
    policy "$p" v1
    real_gavel=$gavel
    printf '#!/usr/bin/env bash\nulimit -n 64\nexec "%s" "$@"\n' "$real_gavel" > "$work/gavel-64"
    chmod +x "$work/gavel-64"
    gavel=$work/gavel-64
    start_server fd --policies "$p" --insecure-http --reload-interval 100ms --header-timeout 60s
    started=$?
    gavel=$real_gavel
    ((started == 0)) || { fail "fd: the server did not start"; return; }
    # One connection kept open to ask through while no other can be accepted.
    exec {keep}<>"/dev/tcp/127.0.0.1/$fd_port"
    ask() {
        local body line length=0
        body=$(cat "$fx/reviews/pod-bad.json")
        printf 'POST /validate/kubernetes/registry HTTP/1.1\r\nHost: gavel\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
            "$(printf '%s' "$body" | wc -c)" "$body" >&"$keep"
        while IFS= read -r -t 5 line <&"$keep"; do
            line=${line%$'\r'}
            [[ -z $line ]] && break
            [[ ${line,,} == content-length:* ]] && length=${line#*: }
        done
        LC_ALL=C IFS= read -r -t 5 -N "$length" body <&"$keep"
        printf '%s' "$body" > "$work/kept.json"
        json_get "$work/kept.json" 'object.get(input.response, ["status", "message"], "allowed")'
}
expect_eq "fd: serving" "$(ask)" "$(want v1)"
idle=()
for _ in $(seq 1 100); do
    exec {fd}<>"/dev/tcp/127.0.0.1/$fd_port" 2>/dev/null || break
    idle+=("$fd")
done
sleep 0.5
echo 'package other' | put "$p/other.rego"  # a change: the next poll reads again
for _ in $(seq 1 100); do grep -q 'too many open files' "$fd_log" && break; sleep 0.1; done
grep '"level":"error"' "$fd_log" | grep 'reload failed' | grep -q "open $p: too many open files" &&
    pass "fd: the failed reload is logged as an error with the path and the error" ||
    { fail "fd: no error logged"; tail -5 "$fd_log"; }
expect_eq "fd: the last good policies keep serving" "$(ask)" "$(want v1)"
expect_eq "fd: nothing was reloaded" "$(grep -c 'policies reloaded' "$fd_log")" 0
for fd in "${idle[@]}"; do exec {fd}>&-; done
exec {keep}>&-
for _ in $(seq 1 100); do grep -q 'policies reloaded' "$fd_log" && break; sleep 0.1; done
expect_eq "fd: the failure counted once" "$(metric "$fd_diag_port" failure)" 1
expect_eq "fd: descriptors back, the change loads" "$(metric "$fd_diag_port" success)" 2
expect_eq "fd: serving" "$(bad_message "$fd_port")" "$(want v1)"
stop_server "$fd_pid"
}
out_of_descriptors

# --- The CLI with a cycle ends, naming the link ---------------------------------
p=$work/cli
mkdir -p "$p/sub"
printf 'package x\n\nallow := true\n\ntest_allow if allow\n' > "$p/x.rego"
ln -s .. "$p/sub/up"
out=$(timeout 60 "$gavel" eval -d "$p" data.x.allow 2>&1)
expect_eq "eval -d with a cycle: ends with an error" "$?" 2
[[ $out == *"$p/sub/up: directory cycle"* ]] && pass "eval: names the link" || fail "eval: $out"
out=$(timeout 60 "$gavel" test "$p" 2>&1)
expect_eq "test with a cycle: ends with an error" "$?" 1
[[ $out == *"$p/sub/up: directory cycle"* ]] && pass "test: names the link" || fail "test: $out"
out=$(timeout 60 "$gavel" test --ignore 'nothing*' "$p" 2>&1)
expect_eq "test --ignore with a cycle: ends with an error" "$?" 1
out=$(timeout 60 "$gavel" check "$p" 2>&1)
expect_eq "check with a cycle: ends with an error" "$?" 1
[[ $out == *"$p/sub/up: directory cycle"* ]] && pass "check: names the link" || fail "check: $out"

finish
