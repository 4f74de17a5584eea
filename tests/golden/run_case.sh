#!/bin/sh
# run_case.sh JOULES CASE_DIR SOURCE_DIR [WRAPPER]
# Runs `joules $(cat args)` from SOURCE_DIR and compares stdout, exit status
# and (if expected.stderr exists) stderr with the case's expectations.
# ${SHARED} in args stands for the shared/ folder beside the checkout, ${TMP}
# for a scratch folder of the case. Optional files of a case:
#   requires  paths under ${SHARED} (one a line) the case reads: when one is
#             missing the case is skipped (exit 77, one line saying which)
#   setup     shell lines run first (e.g. "$joules" import ... -o ${TMP}/x.h5),
#             their output discarded; a failing line fails the case
set -u
joules=$1; case_dir=$2; src=$3; wrapper=${4:-}
shared=${JOULES_SHARED_DIR:-$src/../shared}
if [ -f "$case_dir/requires" ]; then
    while IFS= read -r need; do
        [ -n "$need" ] || continue
        if [ ! -e "$shared/$need" ]; then
            echo "SKIP: $shared/$need is missing (public data beside the checkout, never committed)"; exit 77
        fi
    done <"$case_dir/requires"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/case"
args=$(sed -e "s|\${SHARED}|$shared|g" -e "s|\${TMP}|$tmp/case|g" "$case_dir/args")
cd "$src" || exit 1
if [ -f "$case_dir/setup" ]; then
    setup=$(sed -e "s|\${SHARED}|$shared|g" -e "s|\${TMP}|$tmp/case|g" "$case_dir/setup")
    if ! (set -e; eval "$setup") >"$tmp/setup.out" 2>&1; then
        echo "setup failed:"; cat "$tmp/setup.out"; exit 1
    fi
fi
# shellcheck disable=SC2086
eval "$wrapper \"\$joules\" $args" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
# valgrind reports through its own exit code
if [ -n "$wrapper" ] && [ $rc -eq 99 ]; then
    cat "$tmp/stderr"; echo "valgrind found errors"; exit 1
fi
# Paths of the shared folder differ between machines: normalise them in the
# cases that name ${SHARED}; and
# the installed documents' folder --help names (the configured prefix, and
# whether it is installed yet).
sed -i "s|$tmp/case|\${TMP}|g" "$tmp/stdout" "$tmp/stderr"
if grep -q '\${SHARED}' "$case_dir/args"; then
    sed -i "s|$shared|\${SHARED}|g" "$tmp/stdout" "$tmp/stderr"
fi
sed -i 's|^Documents named \*\.md: .*|Documents named *.md: ${DOCDIR}|' "$tmp/stdout" "$tmp/stderr"
# A document's provenance block (joules version and build, input hashes,
# the time: docs/accounting.md) is checked by the account tests, not here:
# the goldens compare the figures, which must not move with the compiler.
awk '/^  "provenance": \{$/ {skip = 1; next} skip && /^  \},?$/ {skip = 0; next} !skip' \
    "$tmp/stdout" >"$tmp/stdout.np" && mv "$tmp/stdout.np" "$tmp/stdout"
if [ "${JOULES_UPDATE_GOLDEN:-}" = 1 ] && [ -z "$wrapper" ]; then
    cp "$tmp/stdout" "$case_dir/expected.stdout"
    echo "$rc" >"$case_dir/expected.exit"
    [ -f "$case_dir/expected.stderr" ] && cp "$tmp/stderr" "$case_dir/expected.stderr"
    echo "updated $case_dir"; exit 0
fi
fail=0
want_rc=$(cat "$case_dir/expected.exit")
if [ "$rc" != "$want_rc" ]; then
    echo "exit status $rc, expected $want_rc"; fail=1
fi
if ! diff -u "$case_dir/expected.stdout" "$tmp/stdout" >"$tmp/diff"; then
    echo "stdout differs:"; head -100 "$tmp/diff"; fail=1
fi
if [ -f "$case_dir/expected.stderr" ] && ! diff -u "$case_dir/expected.stderr" "$tmp/stderr" >"$tmp/diff"; then
    echo "stderr differs:"; head -50 "$tmp/diff"; fail=1
fi
if [ $fail -ne 0 ]; then echo "--- stderr was:"; head -30 "$tmp/stderr"; fi
exit $fail
