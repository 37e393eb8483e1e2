#!/usr/bin/env bash
# Soak test of gavel serve (not part of the test suite): wrk load over TLS while
# the policy directory is rewritten every few seconds, alternating between two
# versions whose deny messages differ ("v1: ..." / "v2: ..."). Every response
# must be HTTP 200 and carry exactly one version's complete decision: a request
# is never lost and never sees a half-loaded policy.
#
#   test/bench/load_soak_reload.sh [GAVEL] [DURATION_SECONDS] [RELOAD_EVERY_SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
gavel=$(realpath "${1:-$root/build/cli/gavel}")
duration=${2:-600}
every=${3:-5}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/policies"

# Two files per version, so that a half-applied reload would be visible: the
# message prefix comes from one file, the registry from the other. The files are
# switched the way a Kubernetes ConfigMap volume does it: each version lives in
# its own "..<version>" directory, "..data" points at the current one and is
# replaced atomically (rename), and the visible files link through "..data".
serial=0
version() {
    serial=$((serial + 1))
    local dir="$work/policies/..$serial"
    mkdir -p "$dir"
    cat > "$dir/registry.rego" <<REGO
package kubernetes.admission

deny contains msg if {
	some container in input.request.object.spec.containers
	not startswith(container.image, data.kubernetes.admission.registry_prefix)
	msg := sprintf("$1: image '%v' comes from untrusted registry", [container.image])
}
REGO
    printf 'package kubernetes.admission\n\nregistry_prefix := "%s"\n' "$2" > "$dir/settings.rego"
    ln -sfn "..$serial" "$work/policies/..data_tmp"
    mv -T "$work/policies/..data_tmp" "$work/policies/..data"
}
version v1 hooli.com/
ln -s ..data/registry.rego "$work/policies/registry.rego"
ln -s ..data/settings.rego "$work/policies/settings.rego"

cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local f = io.open("$root/examples/admission-v1/pod.json", "rb")
wrk.body = f:read("*a")
f:close()
local v1 = "v1: image 'mysql' comes from untrusted registry, v1: image 'nginx' comes from untrusted registry"
local v2 = "v2: image 'mysql' comes from untrusted registry"
bad = 0
seen1 = 0
seen2 = 0
response = function(status, headers, body)
  if status == 200 and string.find(body, v1, 1, true) then seen1 = seen1 + 1
  elseif status == 200 and string.find(body, '"message":"' .. v2 .. '"', 1, true) then seen2 = seen2 + 1
  else bad = bad + 1; if bad < 5 then io.stderr:write(status .. " " .. body .. "\n") end end
end
-- Each wrk thread has its own Lua state: done() sums the threads' counters.
local threads = {}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local b, s1, s2 = 0, 0, 0
  for _, t in ipairs(threads) do b = b + t:get("bad"); s1 = s1 + t:get("seen1"); s2 = s2 + t:get("seen2") end
  io.write(string.format("responses: v1 %d, v2 %d, neither %d; non-2xx %d; socket errors: connect %d read %d write %d timeout %d\n",
    s1, s2, b, summary.errors.status, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout))
  io.write(string.format("latency p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
LUA

"$gavel" serve --policies "$work/policies" --addr 127.0.0.1:0 --rest-addr 127.0.0.1:0 --diagnostic-addr 127.0.0.1:0 \
    --reload-interval 200ms > /dev/null 2> "$work/server.log" &
pid=$!
for _ in $(seq 1 100); do grep -q '"listener":"admission"' "$work/server.log" && break; sleep 0.1; done
port=$(grep '"listener":"admission"' "$work/server.log" | grep -o '"port":[0-9]*' | cut -d: -f2)
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$pid/status"; }
echo "RSS at start: $(rss)"
(
    n=0
    while sleep "$every"; do
        n=$((n + 1))
        if ((n % 2)); then version v2 nginx; else version v1 hooli.com/; fi
    done
) &
reloader=$!
wrk -t1 -c16 -d"${duration}s" -s "$work/post.lua" "https://127.0.0.1:$port/validate/kubernetes/admission"
kill "$reloader"
echo "reloads: $(grep -c '"msg":"policies reloaded"' "$work/server.log") ok, $(grep -c '"msg":"reload failed' "$work/server.log") failed"
echo "RSS at end: $(rss)"
kill -TERM "$pid"
wait "$pid"
