#!/bin/sh
# faults.sh JOULES FAULT_SHIM_SO PYTHON SRC WORKDIR
# Faults end cleanly (docs/robustness.md "Faults", docs/security.md): the
# preloaded shim (malformed_fault_shim.c) makes each fault at a known point, no root,
# no timing:
#  1. a full disk under `import -o` (the streamed writer, the in-memory
#     writer, at several points) and under `import --into`: exit 4 and a
#     message, never a signal (HDF5 1.10 died with SIGSEGV in its exit
#     handler after a failed H5Fclose), nothing left behind;
#  2. a failed rename: exit 4, the message, no temporary left;
#  3. SIGTERM / SIGINT during `import -o`: the temporary OUT.h5.tmp-XXXXXX is
#     removed and stderr says what was not written;
#  4. two `import -o OUT` without --force: the second to finish finds OUT
#     made meanwhile and leaves it (exit 4), never replaces it;
#  5. two `import kineto --into` of one trace at once: the second waits for
#     the first, and both runs keep their spans.
set -u
J=$1 shim=$2 python=$3 SRC=$4 W=$5
fail=0
bad() { echo "FAIL: $*"; fail=1; }
rm -rf "$W"; mkdir -p "$W"
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}verify_asan_link_order=0"
LOG=$SRC/tests/golden/data/nvsmi-2gpu.csv
RUNS=$W/runs.csv
BENCH=$(find "$SRC/tests/fixtures/mlenergy-benchmark" -name results.json | head -1)
BENCH=$(dirname "$BENCH")
"$python" - "$W" "$SRC" <<'EOF' || exit 1
import sys
sys.path.insert(0, sys.argv[2] + "/tests/malformed")
import tracegen as tg
w = sys.argv[1]
for name in ("t1", "t2", "t3"):
    tg.write_trace("%s/%s.h5" % (w, name),
                   [(r, tg.llm_run, {"start_time_unix": 1795000000.0}) for r in ("a", "b")])
src = open(sys.argv[2] + "/tests/fuzz/corpus/import_kineto/seed1.json", "rb").read()[1:]
open(w + "/profile.json", "wb").write(src)
open(w + "/runs.csv", "w").write(
    "run,start,end,gpus,model,task,precision,max_batch_size\n"
    "warm,2026-11-23T10:00:00Z,2026-11-23T10:00:01.5Z,\"0,1\",org/m,chat,bfloat16,16\n"
    "solo,2026-11-23T10:00:01Z,2026-11-23T10:00:02.9Z,1,org/m,chat,bfloat16,16\n")
EOF
smi() { # smi OUT [more args]: the nvidia-smi import of the golden log
    out=$1; shift
    "$J" import nvidia-smi "$LOG" --runs "$RUNS" --timezone UTC --set workload=llm --quiet -o "$out" "$@" >/dev/null
}
bg_smi() { # the same as the process itself: `bg_smi ... &` makes $! joules' pid
    out=$1; shift
    exec "$J" import nvidia-smi "$LOG" --runs "$RUNS" --timezone UTC --set workload=llm --quiet -o "$out" "$@" >/dev/null
}
leftovers() { ls -a "$W" | grep -E '\.tmp-|\.spans-' ; }
died_by_signal() { [ "$1" -gt 128 ] && [ "$1" -ne 132 ] && [ "$1" -ne 134 ] && [ "$1" -ne 139 ]; }
wait_for() { # file, tenths of a second
    n=0
    while [ ! -e "$1" ] && [ $n -lt "$2" ]; do sleep 0.1; n=$((n + 1)); done
    [ -e "$1" ]
}
sanitizer() { grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:|HDF5-DIAG' "$1"; }

# 1. a full disk
for after in 0 3000 20000; do
    JOULES_TEST_ENOSPC_NAME=out.h5.tmp JOULES_TEST_ENOSPC_AFTER=$after LD_PRELOAD="$shim" \
        smi "$W/out.h5" 2>"$W/err"
    rc=$?
    [ $rc -eq 4 ] || bad "full disk after $after bytes, nvidia-smi import: exit $rc, expected 4: $(head -c 400 "$W/err")"
    grep -q "No space left on device" "$W/err" || bad "full disk after $after bytes: no 'No space left on device': $(head -c 400 "$W/err")"
    [ -e "$W/out.h5" ] && bad "full disk after $after bytes: out.h5 written"
    leftovers && bad "full disk after $after bytes: temporary file left"
    sanitizer "$W/err" && bad "full disk after $after bytes: sanitizer report"
done
if [ -n "$BENCH" ]; then
    JOULES_TEST_ENOSPC_NAME=out.h5.tmp JOULES_TEST_ENOSPC_AFTER=2000 LD_PRELOAD="$shim" \
        "$J" import mlenergy-benchmark "$BENCH" --quiet -o "$W/out.h5" 2>"$W/err"
    rc=$?
    [ $rc -eq 4 ] || bad "full disk, mlenergy-benchmark import (in memory): exit $rc, expected 4: $(head -c 400 "$W/err")"
    [ -e "$W/out.h5" ] && bad "full disk, mlenergy-benchmark: out.h5 written"
    leftovers && bad "full disk, mlenergy-benchmark: temporary file left"
else
    bad "no mlenergy-benchmark fixture under tests/fixtures"
fi
cp "$W/t3.h5" "$W/t3.orig"
for after in 0 20000; do
    JOULES_TEST_ENOSPC_NAME=t3.h5.spans JOULES_TEST_ENOSPC_AFTER=$after LD_PRELOAD="$shim" \
        "$J" import kineto "$W/profile.json" --into "$W/t3.h5:a" --quiet 2>"$W/err"
    rc=$?
    [ $rc -eq 4 ] || bad "full disk after $after bytes, import --into: exit $rc, expected 4: $(head -c 400 "$W/err")"
    cmp -s "$W/t3.h5" "$W/t3.orig" || bad "full disk, import --into: the trace changed"
    leftovers && bad "full disk, import --into: temporary file left"
done

# 2. a failed rename
JOULES_TEST_FAIL_RENAME=out.h5 LD_PRELOAD="$shim" smi "$W/out.h5" 2>"$W/err"
rc=$?
[ $rc -eq 4 ] || bad "failed rename: exit $rc, expected 4: $(head -c 400 "$W/err")"
grep -q "out.h5.*into place: Input/output error" "$W/err" || bad "failed rename: message: $(head -c 400 "$W/err")"
[ -e "$W/out.h5" ] && bad "failed rename: out.h5 exists"
leftovers && bad "failed rename: temporary file left"

# 3. interrupted
for sig in TERM INT; do
    rm -f "$W/hold" "$W/hold.go"
    JOULES_TEST_HOLD_RENAME="$W/hold" JOULES_TEST_HOLD_RENAME_NAME=out.h5.tmp LD_PRELOAD="$shim" \
        bg_smi "$W/out.h5" 2>"$W/err" &
    pid=$!
    if wait_for "$W/hold" 600; then
        ls -a "$W" | grep -q '^out\.h5\.tmp-' || bad "SIG$sig: no temporary file while writing?"
        kill -s $sig $pid
        wait $pid; rc=$?
        died_by_signal $rc || bad "SIG$sig during import: exit $rc, expected death by the signal"
        [ -e "$W/out.h5" ] && bad "SIG$sig during import: out.h5 written"
        leftovers && bad "SIG$sig during import: temporary file left ($(ls "$W" | tr '\n' ' '))"
        grep -q "interrupted: $W/out.h5 was not written" "$W/err" ||
            bad "SIG$sig during import: no line saying what was not written: $(cat "$W/err")"
    else
        touch "$W/hold.go"; kill $pid 2>/dev/null; wait $pid
        bad "SIG$sig: the shim never held the import (stderr: $(head -3 "$W/err"))"
    fi
done

# 4. two writers of one -o OUT without --force
rm -f "$W/hold" "$W/hold.go" "$W/out.h5"
JOULES_TEST_HOLD_RENAME="$W/hold" JOULES_TEST_HOLD_RENAME_NAME=out.h5.tmp LD_PRELOAD="$shim" \
    bg_smi "$W/out.h5" 2>"$W/err" &
pid=$!
if wait_for "$W/hold" 600; then
    smi "$W/out.h5" --set team=second 2>"$W/err2" || bad "-o race: the second writer failed: $(cat "$W/err2")"
    before=$(cksum <"$W/out.h5")
    touch "$W/hold.go"
    wait $pid; rc=$?
    [ $rc -eq 4 ] || bad "-o race: the first writer exited $rc, expected 4 (OUT appeared meanwhile)"
    grep -q "appeared while it was being written" "$W/err" || bad "-o race: message: $(cat "$W/err")"
    [ "$(cksum <"$W/out.h5")" = "$before" ] || bad "-o race: the second writer's out.h5 was replaced"
    leftovers && bad "-o race: temporary file left"
else
    touch "$W/hold.go"; kill $pid 2>/dev/null; wait $pid
    bad "-o race: the shim never held the first writer"
fi

# 5. two --into of one trace at once
rm -f "$W/hold" "$W/hold.go" "$W/busy"
JOULES_TEST_HOLD_RENAME="$W/hold" JOULES_TEST_HOLD_RENAME_NAME=t1.h5.spans LD_PRELOAD="$shim" \
    "$J" import kineto "$W/profile.json" --into "$W/t1.h5:a" --quiet >/dev/null 2>"$W/err" &
pa=$!
if wait_for "$W/hold" 600; then
    JOULES_TEST_FLOCK_WAIT="$W/busy" LD_PRELOAD="$shim" \
        "$J" import kineto "$W/profile.json" --into "$W/t1.h5:b" --quiet >/dev/null 2>"$W/err2" &
    pb=$!
    # the second waits for the first (new), or does not (then it ends first)
    n=0
    while [ ! -e "$W/busy" ] && kill -0 $pb 2>/dev/null && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
    [ -e "$W/busy" ] || bad "--into race: the second import did not wait for the first"
    touch "$W/hold.go"
    wait $pa; ra=$?
    wait $pb; rb=$?
    [ $ra -eq 0 ] && [ $rb -eq 0 ] || bad "--into race: exits $ra and $rb: $(cat "$W/err" "$W/err2")"
    for r in a b; do
        "$J" attribute "$W/t1.h5:$r" >/dev/null 2>"$W/err3" || bad "--into race: run $r lost its spans: $(cat "$W/err3")"
    done
    leftovers && bad "--into race: temporary file left"
else
    touch "$W/hold.go"; kill $pa 2>/dev/null; wait $pa
    bad "--into race: the shim never held the first import"
fi
sanitizer "$W/err" && bad "sanitizer report"

[ $fail -eq 0 ] && echo "faults: all checks passed"
exit $fail
