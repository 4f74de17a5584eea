#!/bin/sh
# check_help.sh JOULES: every command's --help (and joules --help) lists each
# option once, prints no doubled '%%' (a help text not passed through printf),
# names no source file (src/...: a user has the documents, not the tree), and
# joules --help mentions --version.
set -u
joules=$1
fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$joules" --help >"$out" 2>&1
grep -q -- '--version' "$out" || { echo "joules --help does not mention --version"; fail=1; }
cmds=$(sed -n 's/^  \([a-z]*\)  .*/\1/p' "$out")
[ -n "$cmds" ] || { echo "no commands listed by joules --help"; exit 1; }
for c in "" $cmds; do
    if [ -n "$c" ]; then "$joules" "$c" --help >"$out" 2>&1; else "$joules" --help >"$out" 2>&1; fi
    name=${c:-joules}
    dup=$(grep -oE '^  +(-[a-zA-Z], )?--[a-z-]+' "$out" | sed 's/^ *//' | sort | uniq -d)
    [ -z "$dup" ] || { echo "$name --help lists twice: $dup"; fail=1; }
    if grep -q '%%' "$out"; then echo "$name --help prints '%%'"; fail=1; fi
    if grep -qE '(^|[ (])src/' "$out"; then echo "$name --help names a source path:"; grep -E '(^|[ (])src/' "$out"; fail=1; fi
done
exit $fail
