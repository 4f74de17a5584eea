#!/bin/sh
# outputs.sh JOULES HOLD_FSYNC_SO PYTHON WORKDIR
# Files joules writes are whole or absent (docs/cli.md "Output files",
# docs/robustness.md):
#  1. SIGINT / SIGTERM while `summarize --csv OUT` is still reading many
#     files (held by the preloaded shim in open() of the 11th): exit by the
#     signal, no OUT, no OUT.tmp.*;
#  2. SIGINT / SIGTERM while the CSV is complete in its temporary file but
#     not yet renamed (held in fsync() by the preloaded shim): the temporary
#     file is removed, an older OUT intact;
#  3. write errors: --csv /dev/full, --json and the table to a full stdout,
#     --csv into a missing folder: exit 4, a message, nothing left behind.
set -u
joules=$1; shim=$2; python=$3; work=$4
here=$(cd "$(dirname "$0")" && pwd)
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$work"; mkdir -p "$work/in" "$work/out"
# ASan (sanitizer tree) tolerates the preloaded shim this way
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"

"$python" -c "import sys; sys.path.insert(0, '$here'); import tracegen; tracegen.good_trace('$work/in/t0000.h5')" || exit 1
# many copies of one small file (copies, not links: a file reached by two
# names is read once, docs/security.md "Folder walks")
i=1
while [ $i -lt 20 ]; do cp "$work/in/t0000.h5" "$work/in/t$(printf %04d $i).h5"; i=$((i + 1)); done
echo "old,csv" >"$work/out/old.csv"

leftovers() { # no temporaries of OUT may remain
    ls -a "$work/out" | grep -E '\.tmp\.' && return 0
    return 1
}

survivors() { # processes (a worker) still running the command that wrote $1
    for c in /proc/[0-9]*/cmdline; do
        tr '\0' ' ' <"$c" 2>/dev/null | grep -qF -- "summarize --csv $1 " && return 0
    done
    return 1
}

wait_gone() { # $1 as for survivors; up to 10 s for the kernel to end them
    n=0
    while survivors "$1" && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
    ! survivors "$1"
}

wait_for() { # file, tenths of a second
    n=0
    while [ ! -e "$1" ] && [ $n -lt "$2" ]; do sleep 0.1; n=$((n + 1)); done
    [ -e "$1" ]
}

for sig in INT TERM; do
    # 1. interrupted while reading
    rm -f "$work/out/new.csv"
    rm -f "$work/marker"
    JOULES_TEST_HOLD_OPEN="$work/marker" JOULES_TEST_HOLD_OPEN_NAME=/t0010.h5 LD_PRELOAD="$shim" \
        "$joules" summarize --csv "$work/out/new.csv" "$work/in" >/dev/null 2>"$work/err" &
    pid=$!
    if wait_for "$work/marker" 600; then
        kill -s $sig $pid
        wait $pid; rc=$?
        [ $rc -gt 128 ] || bad "reading, SIG$sig: exit $rc, expected death by the signal"
        [ -e "$work/out/new.csv" ] && bad "reading, SIG$sig: new.csv exists"
        leftovers && bad "reading, SIG$sig: temporary file left"
        wait_gone "$work/out/new.csv" || bad "reading, SIG$sig: a worker process outlived joules"
    else
        kill $pid 2>/dev/null; wait $pid
        bad "reading, SIG$sig: the shim never held open() (stderr: $(head -3 "$work/err"))"
    fi

    # 2. interrupted with the whole CSV in its temporary file
    rm -f "$work/marker"
    JOULES_TEST_HOLD_FSYNC="$work/marker" LD_PRELOAD="$shim" \
        "$joules" summarize --csv "$work/out/old.csv" --force "$work/in/t0000.h5" >/dev/null 2>"$work/err" &
    pid=$!
    if wait_for "$work/marker" 600; then
        ls "$work/out" | grep -qE '^old\.csv\.tmp\.' || bad "held, SIG$sig: no temporary file while writing?"
        kill -s $sig $pid
        wait $pid; rc=$?
        [ $rc -gt 128 ] || bad "held, SIG$sig: exit $rc, expected death by the signal"
        leftovers && bad "held, SIG$sig: temporary file left"
        [ "$(cat "$work/out/old.csv")" = "old,csv" ] || bad "held, SIG$sig: old.csv changed"
        grep -q "interrupted: $work/out/old.csv was not written (the existing file is unchanged)" "$work/err" ||
            bad "held, SIG$sig: no line saying what was not written: $(cat "$work/err")"
    else
        kill $pid 2>/dev/null; wait $pid
        bad "held, SIG$sig: the shim never held fsync (stderr: $(head -3 "$work/err"))"
    fi
done

# 3. write errors
one="$work/in/t0000.h5"
"$joules" summarize --csv /dev/full "$one" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 4 ] || bad "--csv /dev/full: exit $rc, expected 4"
grep -q "/dev/full: write failed: No space left on device" "$work/err" || bad "--csv /dev/full: message: $(cat "$work/err")"
ls /dev | grep -q '^full\.tmp\.' && bad "--csv /dev/full: temporary file left in /dev"
[ -c /dev/full ] || bad "/dev/full is no longer a device"
for args in "--json" "" "--csv -"; do
    # shellcheck disable=SC2086
    "$joules" summarize $args "$one" >/dev/full 2>"$work/err"; rc=$?
    [ $rc -eq 4 ] || bad "summarize $args >/dev/full: exit $rc, expected 4"
    grep -q "cannot write to standard output: No space left on device" "$work/err" ||
        bad "summarize $args >/dev/full: message: $(cat "$work/err")"
done
"$joules" check "$one" >/dev/full 2>"$work/err"; rc=$?
[ $rc -eq 4 ] || bad "check >/dev/full: exit $rc, expected 4"
"$joules" summarize --csv "$work/out/missing/x.csv" "$one" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 4 ] || bad "--csv into a missing folder: exit $rc, expected 4"
grep -q "cannot create output file: No such file or directory" "$work/err" || bad "missing folder: message: $(cat "$work/err")"
"$joules" summarize --csv /dev/null "$one" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 0 ] || bad "--csv /dev/null: exit $rc, expected 0"
[ -c /dev/null ] || bad "/dev/null is no longer a device"
# 4. one rule for outputs that exist: --csv FILE needs --force, as import and report
echo "mine" >"$work/out/exists.csv"
"$joules" frontier --csv "$work/out/exists.csv" "$one" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 2 ] || bad "--csv over an existing file without --force: exit $rc, expected 2"
grep -q "exists.csv already exists (use --force to replace it)" "$work/err" || bad "existing --csv: message: $(cat "$work/err")"
[ "$(cat "$work/out/exists.csv")" = "mine" ] || bad "--csv without --force changed an existing file"
"$joules" frontier --csv "$work/out/exists.csv" --force "$one" >/dev/null 2>"$work/err"; rc=$?
[ $rc -eq 0 ] && head -1 "$work/out/exists.csv" | grep -q '^model,' || bad "--csv --force did not replace the file (exit $rc)"
if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$work/err"; then bad "sanitizer report"; fi

[ $fail -eq 0 ] && echo "outputs: all checks passed"
exit $fail
