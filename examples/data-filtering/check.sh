#!/usr/bin/env bash
# Data filtering end to end: gavel's Compile API turns tickets.rego into an SQL
# WHERE clause per user, SQLite runs it over the tickets table, and the rows it
# selects must be exactly the rows for which `gavel eval` of the policy, one row
# at a time with every column known, says data.tickets.include.
#
#   examples/data-filtering/check.sh [path/to/gavel]     (needs curl and sqlite3)
#
# The clauses are also compared with expected/USER.sql; GAVEL_UPDATE=1 rewrites them.
set -euo pipefail
for tool in sqlite3 curl; do
  command -v "$tool" > /dev/null || { echo "skipped: $tool is not installed (scripts/install-deps.sh)"; exit 77; }
done
here=$(cd "$(dirname "$0")" && pwd)
gavel=$(realpath "${1:-$here/../../build/cli/gavel}")
work=$(mktemp -d)
server_pid=""
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

sqlite3 "$work/tickets.db" < "$here/tickets.sql"

# One JSON object per row, as the policy sees a ticket (public as 0/1, assignee null when unset).
sqlite3 "$work/tickets.db" "SELECT id, json_object('id', id, 'tenant', tenant, 'title', title, 'owner', owner,
  'assignee', assignee, 'status', status, 'priority', priority, 'public', public) FROM tickets ORDER BY id" \
  > "$work/rows.txt"

"$gavel" run --server --addr 127.0.0.1:0 "$here/tickets.rego" 2> "$work/server.log" &
server_pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(grep -o '"port":[0-9]*' "$work/server.log" | head -1 | cut -d: -f2 || true)
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { cat "$work/server.log"; exit 1; }

failures=0
users=$(sqlite3 :memory: "SELECT key FROM json_each(readfile('$here/users.json'))")
for user in $users; do
  user_json=$(sqlite3 :memory: "SELECT json_extract(readfile('$here/users.json'), '$.$user')")
  # The filter: the tickets are unknown (the policy's METADATA says so), the user is known.
  curl -sS -X POST -H 'Accept: application/vnd.opa.sql.sqlite+json' -H 'Content-Type: application/json' \
    --data-binary "{\"input\": {\"user\": $user_json}}" \
    "http://127.0.0.1:$port/v1/compile/tickets/include" > "$work/$user.response.json"
  has_result=$(sqlite3 :memory: "SELECT json_type(readfile('$work/$user.response.json'), '$.result')")
  if [[ -z $has_result ]]; then
    if sqlite3 :memory: "SELECT json_extract(readfile('$work/$user.response.json'), '$.code')" | grep -q .; then
      echo "$user: the Compile API answered an error:"; cat "$work/$user.response.json"; exit 1
    fi
    where="WHERE FALSE"  # no result: no ticket can ever be included
  else
    where=$(sqlite3 :memory: "SELECT json_extract(readfile('$work/$user.response.json'), '$.result.query')")
    [[ -n $where ]] || where="WHERE TRUE"  # an empty clause: every ticket
  fi
  if [[ ${GAVEL_UPDATE:-} == 1 ]]; then
    printf '%s\n' "$where" > "$here/expected/$user.sql"
  elif [[ $where != "$(cat "$here/expected/$user.sql")" ]]; then
    echo "$user: the WHERE clause differs from expected/$user.sql:"
    echo "  got:  $where"
    echo "  want: $(cat "$here/expected/$user.sql")"
    failures=$((failures + 1))
  fi
  from_sql=$(sqlite3 "$work/tickets.db" "SELECT id FROM tickets $where ORDER BY id" | tr '\n' ' ')

  from_eval=""
  while IFS='|' read -r id row; do
    printf '{"user": %s, "tickets": %s}' "$user_json" "$row" > "$work/input.json"
    verdict=$("$gavel" eval -d "$here/tickets.rego" -i "$work/input.json" --format raw 'data.tickets.include')
    [[ $verdict == true ]] && from_eval+="$id "
  done < "$work/rows.txt"

  if [[ $from_sql == "$from_eval" ]]; then
    echo "ok   $user: $where -> ${from_sql:-no rows}"
  else
    echo "FAIL $user: $where"
    echo "     SQLite selects:       ${from_sql:-no rows}"
    echo "     gavel eval per row:   ${from_eval:-no rows}"
    failures=$((failures + 1))
  fi
done
((failures == 0)) || { echo "$failures failure(s)"; exit 1; }
