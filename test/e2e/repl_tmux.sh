#!/usr/bin/env bash
# gavel repl at a real terminal (tmux): OPA's Kubernetes walk-through on an
# AdmissionReview, a rule typed at the prompt, tab completion, and history
# (a multi-line statement) surviving a restart. The screen is compared exactly.
source "$(dirname "$0")/lib.sh"
if ! command -v tmux > /dev/null; then echo "FAIL tmux is not installed (scripts/install-deps.sh)"; exit 1; fi

run=0  # each REPL start gets its own tmux server
tmux_() { tmux -L "gavel-repl-test-$$-$run" -f /dev/null "$@"; }
at_exit 'tmux_ kill-server 2> /dev/null || true'
export HOME=$work  # history goes to $work/.gavel_history
input=test/e2e/fixtures/repl/admission_review.json

screen() { tmux_ capture-pane -p -J -S - -t repl 2> /dev/null | sed -e 's/[[:space:]]*$//' | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'; }
prompts() { screen | grep -c '^>' ; }

# Waits until the REPL shows a fresh prompt after `before` prompts (at most 10 s).
wait_prompt() {
    local before=$1
    for _ in $(seq 100); do
        if [[ $(prompts) -gt $before && $(screen | tail -n 1) == ">" ]]; then return 0; fi
        sleep 0.1
    done
    echo "FAIL no prompt after waiting; screen:"; screen; return 1
}

start() {
    tmux_ kill-server 2> /dev/null
    run=$((run + 1))
    tmux_ new-session -d -s repl -x 200 -y 50 "$gavel repl -i $input; sleep 30"
    tmux_ set-option -t repl history-limit 5000 > /dev/null
    wait_prompt 0
}

# statement TEXT: types one line and Enter, then waits for the next prompt.
statement() {
    local before
    before=$(prompts)
    tmux_ send-keys -t repl -l "$1"
    tmux_ send-keys -t repl Enter
    wait_prompt "$before"
}

# expect_screen NAME EXPECTED [FIRST-LINE-REGEX]: the screen (from the first line matching) exactly.
expect_screen() {
    local name=$1 want=$2 from=${3:-}
    if diff -u <(printf '%s\n' "$want") <(if [[ -n $from ]]; then screen | sed -n "/$from/,\$p"; else screen; fi) > "$work/diff"; then
        echo "ok   $name"
    else
        echo "FAIL $name"; cat "$work/diff"; failures=$((failures + 1))
    fi
}

banner="gavel REPL. Run 'help' to see a list of commands, Ctrl-D or 'exit' to leave."

start
statement 'input.request.kind'
statement 'input.request.kind.kind'
statement 'input.request.object.spec.containers[0]'
statement 'input.request.object.spec.containers[0].image'
statement 'i := 0'
statement 'input.request.object.spec.containers[i]'
statement 'input.request.object.spec.containers[j]'
expect_screen walk-through "$banner
> input.request.kind
{
  \"group\": \"\",
  \"kind\": \"Pod\",
  \"version\": \"v1\"
}
> input.request.kind.kind
\"Pod\"
> input.request.object.spec.containers[0]
{
  \"image\": \"nginx\",
  \"name\": \"nginx-frontend\"
}
> input.request.object.spec.containers[0].image
\"nginx\"
> i := 0
Rule 'i' defined in package repl. Type 'show' to see rules.
> input.request.object.spec.containers[i]
{
  \"image\": \"nginx\",
  \"name\": \"nginx-frontend\"
}
> input.request.object.spec.containers[j]
+---+-------------------------------------------+
| j |  input.request.object.spec.containers[j]  |
+---+-------------------------------------------+
| 0 | {\"image\":\"nginx\",\"name\":\"nginx-frontend\"} |
| 1 | {\"image\":\"mysql\",\"name\":\"mysql-backend\"}  |
+---+-------------------------------------------+
>"

# A rule over several lines (the open brace continues), then queried.
before=$(prompts)
tmux_ send-keys -t repl -l 'untrusted contains name if {'; tmux_ send-keys -t repl Enter
tmux_ send-keys -t repl -l '  some c in input.request.object.spec.containers'; tmux_ send-keys -t repl Enter
tmux_ send-keys -t repl -l '  not startswith(c.image, "hooli.com/")'; tmux_ send-keys -t repl Enter
tmux_ send-keys -t repl -l '  name := c.name'; tmux_ send-keys -t repl Enter
tmux_ send-keys -t repl -l '}'; tmux_ send-keys -t repl Enter
wait_prompt "$before"
statement 'untrusted'
# Completion: the only key below input.request starting "ob" is object.
tmux_ send-keys -t repl -l 'input.request.ob'
tmux_ send-keys -t repl Tab; sleep 0.3
tmux_ send-keys -t repl -l '.metadata.na'; tmux_ send-keys -t repl Tab; sleep 0.3
before=$(prompts); tmux_ send-keys -t repl Enter; wait_prompt "$before"
expect_screen rule-and-completion "> untrusted contains name if {
|   some c in input.request.object.spec.containers
|   not startswith(c.image, \"hooli.com/\")
|   name := c.name
| }
Rule 'untrusted' defined in package repl. Type 'show' to see rules.
> untrusted
[
  \"mysql-backend\",
  \"nginx-frontend\"
]
> input.request.object.metadata.name
\"myapp\"
>" '^> untrusted contains'

# Ctrl-D leaves; a new REPL recalls the history: three entries back is the multi-line rule, whole.
tmux_ send-keys -t repl C-d; sleep 0.3
start
tmux_ send-keys -t repl Up Up Up; sleep 0.3
before=$(prompts); tmux_ send-keys -t repl Enter; wait_prompt "$before"
statement 'count(untrusted)'
expect_screen history "$banner
> untrusted contains name if {
  some c in input.request.object.spec.containers
  not startswith(c.image, \"hooli.com/\")
  name := c.name
}
Rule 'untrusted' defined in package repl. Type 'show' to see rules.
> count(untrusted)
2
>"
if ! grep -q '^_HiStOrY_V2_' "$work/.gavel_history"; then echo "FAIL history file"; failures=$((failures + 1)); fi

# Ctrl-C abandons a half-typed statement (even one spanning lines); the REPL goes on.
tmux_ send-keys -t repl -l '[1,'; tmux_ send-keys -t repl Enter; sleep 0.2
before=$(prompts); tmux_ send-keys -t repl C-c; wait_prompt "$before"
statement '1 + 1'
if [[ "$(screen | tail -n 3)" == $'> 1 + 1\n2\n>' ]]; then echo "ok   ctrl-c"; else echo "FAIL ctrl-c"; screen; failures=$((failures + 1)); fi

tmux_ send-keys -t repl -l 'exit'; tmux_ send-keys -t repl Enter; sleep 0.3

finish
