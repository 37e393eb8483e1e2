#!/usr/bin/env bash
# gavel fmt: output, flags and exit statuses as opa fmt's (cmd/fmt.go).
source "$(dirname "$0")/lib.sh"

check() {  # name, condition result (0 = ok)
    if [[ $2 -eq 0 ]]; then echo "ok   $1"; else echo "FAIL $1"; failures=$((failures + 1)); fi
}

printf 'package a\n\np := 1\n' > "$work/clean.rego"
printf 'package   a\np:=1\n' > "$work/messy.rego"
printf 'package a\n\np := 1\n' > "$work/messy.expected"
printf 'package a\np if {\n' > "$work/broken.rego"
mkdir -p "$work/dir/sub"
cp "$work/messy.rego" "$work/dir/b.rego"
cp "$work/clean.rego" "$work/dir/a.rego"
cp "$work/messy.rego" "$work/dir/sub/c.rego"
echo 'not rego' > "$work/dir/notes.txt"

# A file: the formatted text on stdout, status 0.
out=$("$gavel" fmt "$work/messy.rego"); st=$?
check "file prints formatted text" $([[ $st -eq 0 && "$out"$'\n' == "$(cat "$work/messy.expected")"$'\n' ]]; echo $?)

# stdin, with no path and with `-`.
out=$("$gavel" fmt < "$work/messy.rego"); check "stdin without a path" $([[ "$out"$'\n' == "$(cat "$work/messy.expected")"$'\n' ]]; echo $?)
out=$("$gavel" fmt - < "$work/messy.rego"); check "stdin as -" $([[ "$out"$'\n' == "$(cat "$work/messy.expected")"$'\n' ]]; echo $?)

# --list: the names of files that would change, walked in lexical order; status 0.
out=$("$gavel" fmt --list "$work/dir"); st=$?
check "--list names changed files" $([[ $st -eq 0 && "$out" == "$work/dir/b.rego"$'\n'"$work/dir/sub/c.rego" ]]; echo $?)
out=$("$gavel" fmt -l "$work/clean.rego"); check "-l is quiet for a clean file" $([[ -z "$out" ]]; echo $?)

# --fail: status 2 and "unexpected diff" when a file would change; 0 when clean.
"$gavel" fmt --fail "$work/clean.rego" > /dev/null; check "--fail on a clean file exits 0" $?
err=$("$gavel" fmt --fail "$work/messy.rego" 2>&1 > /dev/null); st=$?
check "--fail on a changed file exits 2" $([[ $st -eq 2 && "$err" == "unexpected diff" ]]; echo $?)
out=$("$gavel" fmt -l --fail "$work/dir" 2>/dev/null); st=$?
check "--list --fail stops at the first changed file" $([[ $st -eq 2 && "$out" == "$work/dir/b.rego" ]]; echo $?)

# --diff: the new text with deletions in red, insertions in green (ANSI), as diff-match-patch prints it.
out=$("$gavel" fmt -d "$work/messy.rego"); st=$?
want=$'package \e[31m  \e[0ma\e[32m\n\e[0m\np\e[32m \e[0m:=\e[32m \e[0m1'
check "--diff prints a coloured character diff" $([[ $st -eq 0 && "$out" == "$want" ]]; echo $?)
out=$("$gavel" fmt -d "$work/clean.rego"); check "--diff is quiet for a clean file" $([[ -z "$out" ]]; echo $?)

# -w: the file is rewritten in place, nothing printed.
cp "$work/messy.rego" "$work/w.rego"
out=$("$gavel" fmt -w "$work/w.rego"); st=$?
check "-w rewrites the file" $([[ $st -eq 0 && -z "$out" ]] && cmp -s "$work/w.rego" "$work/messy.expected"; echo $?)

# --v0-compatible formats v0; --v0-v1 converts v0 to v1.
printf 'package a\n\np[x] { x := input[_] }\n' > "$work/v0.rego"
out=$("$gavel" fmt --v0-compatible "$work/v0.rego")
check "--v0-compatible keeps v0" $([[ "$out" == $'package a\n\np[x] {\n\tx := input[_]\n}' ]]; echo $?)
out=$("$gavel" fmt --v0-v1 "$work/v0.rego")
check "--v0-v1 writes v1" $([[ "$out" == $'package a\n\nimport rego.v1\n\np contains x if x := input[_]' ]]; echo $?)
printf 'package a\n\ncontains[x] { x := 1 }\n' > "$work/kw.rego"
err=$("$gavel" fmt --v0-v1 "$work/kw.rego" 2>&1); st=$?
check "--v0-v1 refuses a keyword as rule name" $([[ $st -eq 2 && "$err" == *"contains keyword cannot be used for rule name"* ]]; echo $?)

# A module that does not parse: OPA's message, status 2 for files, 1 for stdin.
err=$("$gavel" fmt "$work/broken.rego" 2>&1); st=$?
check "parse error in a file exits 2" $([[ $st -eq 2 && "$err" == "failed to format Rego source file: 1 error occurred: $work/broken.rego:"* ]]; echo $?)
err=$("$gavel" fmt < "$work/broken.rego" 2>&1); st=$?
check "parse error on stdin exits 1" $([[ $st -eq 1 && "$err" == "1 error occurred: stdin:"* ]]; echo $?)
err=$("$gavel" fmt "$work/missing.rego" 2>&1); st=$?
check "a missing path exits 1" $([[ $st -eq 1 && "$err" == *"no such file or directory" ]]; echo $?)

# Files that are not .rego are left alone, even when named.
out=$("$gavel" fmt "$work/dir/notes.txt"); check "non-.rego files are skipped" $([[ -z "$out" ]]; echo $?)

finish
